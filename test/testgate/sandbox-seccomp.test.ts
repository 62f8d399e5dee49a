import { describe, expect, it } from 'vitest';
import {
  BLOCKED_SYSCALLS,
  buildSeccompFilter,
  CLONE_NEW_FLAGS,
  evaluateSeccompFilter,
  SECCOMP,
  seccompArch,
} from '../../src/sandbox/sandbox-seccomp.js';

const { AUDIT_ARCH, SYSCALLS, CLONE, CLONE3, IOCTL, TIOCSTI, RET_ALLOW, RET_ERRNO, EPERM, ENOSYS } = SECCOMP;
const DENY = RET_ERRNO | EPERM;

describe('sandbox seccomp filter (classic BPF)', () => {
  for (const arch of ['x64', 'arm64'] as const) {
    const prog = buildSeccompFilter(arch);
    const call = (nr: number, args: number[] = []) => evaluateSeccompFilter(prog, { arch: AUDIT_ARCH[arch], nr, args });

    it(`${arch}: every listed syscall returns EPERM, ordinary ones are allowed`, () => {
      expect(prog.length % 8).toBe(0);
      for (const name of BLOCKED_SYSCALLS) {
        const nr = SYSCALLS[name]![arch];
        if (nr !== null) expect(call(nr), name).toBe(DENY);
      }
      // read, write, openat, execve, getpid, socket
      const ordinary = arch === 'x64' ? [0, 1, 257, 59, 39, 41] : [63, 64, 56, 221, 172, 198];
      for (const nr of ordinary) expect(call(nr), String(nr)).toBe(RET_ALLOW);
    });

    it(`${arch}: clone with a CLONE_NEW* flag is refused, a plain fork or thread is not; clone3 gets ENOSYS`, () => {
      const SIGCHLD = 17;
      const THREAD = 0x3d0f00; // CLONE_VM|FS|FILES|SIGHAND|THREAD|SYSVSEM|SETTLS|PARENT_SETTID|CHILD_CLEARTID
      expect(call(CLONE[arch], [SIGCHLD])).toBe(RET_ALLOW);
      expect(call(CLONE[arch], [THREAD])).toBe(RET_ALLOW);
      for (const flag of [0x00020000, 0x10000000, 0x20000000, 0x40000000, 0x02000000, 0x04000000, 0x08000000]) {
        expect(flag & CLONE_NEW_FLAGS).toBe(flag);
        expect(call(CLONE[arch], [SIGCHLD | flag])).toBe(DENY);
      }
      expect(call(CLONE3)).toBe(RET_ERRNO | ENOSYS);
    });

    it(`${arch}: ioctl TIOCSTI is refused, other ioctls pass`, () => {
      expect(call(IOCTL[arch], [0, TIOCSTI])).toBe(DENY);
      expect(call(IOCTL[arch], [0, 0x541c])).toBe(DENY); // TIOCLINUX
      expect(call(IOCTL[arch], [1, 0x5401])).toBe(RET_ALLOW); // TCGETS
    });

    it(`${arch}: a syscall made under another architecture is refused`, () => {
      expect(evaluateSeccompFilter(prog, { arch: 0x40000003 /* i386 */, nr: 1 })).toBe(DENY);
    });
  }

  it('x32 syscall numbers are refused on x86_64', () => {
    const prog = buildSeccompFilter('x64');
    expect(evaluateSeccompFilter(prog, { arch: AUDIT_ARCH.x64, nr: 0x40000000 + 1 })).toBe(DENY);
  });

  it('knows the architectures it supports', () => {
    expect(seccompArch('x64')).toBe('x64');
    expect(seccompArch('arm64')).toBe('arm64');
    expect(seccompArch('ia32')).toBeNull();
  });
});
