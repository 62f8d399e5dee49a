import { describe, expect, it } from 'vitest';
import { annotationCommand, escapeData, escapeProperty, workflowCommand } from '../../../src/platforms/actions/workflow-commands.js';

describe('workflow commands', () => {
  it('escapes %, CR and LF in messages, and also : and , in properties', () => {
    expect(escapeData('100% done\r\nnext')).toBe('100%25 done%0D%0Anext');
    expect(escapeProperty('a:b,c%\n')).toBe('a%3Ab%2Cc%25%0A');
  });

  it('a hostile file name and message stay one command on one line', () => {
    const line = annotationCommand({
      path: 'src/evil,line=1::\n::add-mask::x.py',
      start_line: 3,
      end_line: 5,
      annotation_level: 'failure',
      title: 'G4: title, with: colons',
      message: 'first line\n::stop-commands::token\n%0A',
    });
    expect(line.split('\n')).toHaveLength(1);
    expect(line).toBe(
      '::error file=src/evil%2Cline=1%3A%3A%0A%3A%3Aadd-mask%3A%3Ax.py,line=3,endLine=5,title=G4%3A title%2C with%3A colons' +
        '::first line%0A::stop-commands::token%0A%250A',
    );
  });

  it('maps levels and leaves out an endLine equal to the line and empty properties', () => {
    expect(annotationCommand({ path: 'a.ts', start_line: 2, end_line: 2, annotation_level: 'warning', title: '', message: 'm' })).toBe(
      '::warning file=a.ts,line=2::m',
    );
    expect(annotationCommand({ path: 'a.ts', start_line: 1, end_line: 1, annotation_level: 'notice', title: 't', message: 'm' })).toBe(
      '::notice file=a.ts,line=1,title=t::m',
    );
    expect(workflowCommand('error', {}, 'plain')).toBe('::error::plain');
  });
});
