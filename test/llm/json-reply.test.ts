import { describe, expect, it } from 'vitest';
import { jsonCandidates, parseJsonReply, repairJson, stripThinking } from '../../src/llm/json-reply.js';

describe('parseJsonReply', () => {
  it('takes plain, fenced and chatty JSON', () => {
    expect(parseJsonReply('{"a":1}')).toEqual({ ok: true, value: { a: 1 }, repaired: false });
    expect(parseJsonReply('Here you go:\n```json\n{"a": [1, 2]}\n```\nAnything else?')).toMatchObject({ ok: true, value: { a: [1, 2] } });
    expect(parseJsonReply('Sure! The answer is {"a": "x}"} and that is all.')).toMatchObject({ ok: true, value: { a: 'x}' } });
    // An opening fence the model never closed.
    expect(parseJsonReply('```json\n{"a": true}')).toMatchObject({ ok: true, value: { a: true } });
  });

  it('prefers a fenced object over braces in the prose before it', () => {
    const reply = 'Use {braces} carefully.\n```\n{"path": "a.py"}\n```';
    expect(parseJsonReply(reply)).toMatchObject({ ok: true, value: { path: 'a.py' } });
  });

  it('repairs trailing commas, bare quotes, raw newlines, single quotes and bare keys', () => {
    const commas = parseJsonReply('{"a": [1, 2,], "b": {"c": 3,},}');
    expect(commas).toMatchObject({ ok: true, value: { a: [1, 2], b: { c: 3 } }, repaired: true });
    expect(parseJsonReply('{"msg": "he said "hi" to me", "n": 1}')).toMatchObject({ ok: true, value: { msg: 'he said "hi" to me', n: 1 } });
    expect(parseJsonReply('{"code": "def f():\n    return 1\n"}')).toMatchObject({ ok: true, value: { code: 'def f():\n    return 1\n' } });
    expect(parseJsonReply("{'a': 'it's \"fine\"'}")).toMatchObject({ ok: true, value: { a: 'it\'s "fine"' } });
    expect(parseJsonReply('{name: "x", ok: True, none: None}')).toMatchObject({ ok: true, value: { name: 'x', ok: true, none: null } });
    expect(parseJsonReply('{"re": "\\d+\\.py"}')).toMatchObject({ ok: true, value: { re: '\\d+\\.py' } });
  });

  it('rejects arrays, scalars and prose with a message', () => {
    expect(parseJsonReply('[1, 2]')).toMatchObject({ ok: false });
    expect(parseJsonReply('I cannot help with that.')).toEqual({ ok: false, error: 'the reply contains no JSON object (no "{" found)' });
    const broken = parseJsonReply('{"a": ');
    expect(broken.ok).toBe(false);
    if (!broken.ok) expect(broken.error).toMatch(/^not valid JSON/);
  });
});

describe('repairJson', () => {
  it('leaves valid JSON unchanged (idempotent)', () => {
    const samples = [
      '{"a": "x, y", "b": ["}", "]"], "c": "say \\"hi\\"", "d": null, "e": true, "f": -1.5e3}',
      '{\n  "files": [\n    {"path": "a", "content": "line\\nnext"}\n  ]\n}',
      '{"k": "\\u00e9\\t"}',
    ];
    for (const s of samples) {
      expect(repairJson(s)).toBe(s);
      expect(repairJson(repairJson(s))).toBe(s);
    }
  });

  it('drops a comma before a closer only outside strings', () => {
    expect(repairJson('{"a": ",}", }')).toBe('{"a": ",}" }');
  });
});

describe('stripThinking and candidates', () => {
  it('removes reasoning blocks, and everything after an unclosed one', () => {
    expect(stripThinking('<think>\nhmm {"no": 1}\n</think>\n{"yes": 1}')).toBe('{"yes": 1}');
    expect(stripThinking('<think></think>{"a":1}')).toBe('{"a":1}');
    expect(stripThinking('{"a":1}<think>never closed')).toBe('{"a":1}');
  });

  it('lists each distinct candidate once', () => {
    expect(jsonCandidates('```json\n{"a":1}\n```')).toEqual(['{"a":1}']);
  });
});
