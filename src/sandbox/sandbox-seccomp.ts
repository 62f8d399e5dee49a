/**
 * The seccomp filter of the test sandbox, as a classic BPF program that bwrap loads with `--seccomp FD`
 * (bwrap reads an array of `struct sock_filter` from the fd and installs it right before it execs the
 * command, with no_new_privs set).
 *
 * Written by hand rather than with libseccomp because the program is small and fixed: the node
 * bindings of libseccomp are unmaintained, and @anthropic-ai/sandbox-runtime ships prebuilt binaries
 * that only block AF_UNIX sockets. The rules follow Flatpak's (flatpak-run.c, setup_seccomp):
 * - a foreign architecture (i386 via int 0x80, x32 syscall numbers) gets EPERM for every call;
 * - syscalls that manage mounts, namespaces, keyrings, kernel modules, tracing, BPF, io_uring, the
 *   clock and the machine return EPERM;
 * - clone() with any CLONE_NEW* flag returns EPERM; clone3() returns ENOSYS (its flags are behind a
 *   pointer that seccomp cannot read), so libc falls back to clone();
 * - ioctl(TIOCSTI) and ioctl(TIOCLINUX) (typing into a terminal) return EPERM.
 * Everything else is allowed.
 */

export type SeccompArch = 'x64' | 'arm64';

const AUDIT_ARCH: Record<SeccompArch, number> = { x64: 0xc000003e, arm64: 0xc00000b7 };
const X32_SYSCALL_BIT = 0x40000000;

/** Syscall numbers (from asm/unistd_64.h and asm-generic/unistd.h). */
const SYSCALLS: Record<string, Record<SeccompArch, number | null>> = {
  mount: { x64: 165, arm64: 40 },
  umount2: { x64: 166, arm64: 39 },
  pivot_root: { x64: 155, arm64: 41 },
  chroot: { x64: 161, arm64: 51 },
  unshare: { x64: 272, arm64: 97 },
  setns: { x64: 308, arm64: 268 },
  ptrace: { x64: 101, arm64: 117 },
  process_vm_readv: { x64: 310, arm64: 270 },
  process_vm_writev: { x64: 311, arm64: 271 },
  keyctl: { x64: 250, arm64: 219 },
  add_key: { x64: 248, arm64: 217 },
  request_key: { x64: 249, arm64: 218 },
  bpf: { x64: 321, arm64: 280 },
  perf_event_open: { x64: 298, arm64: 241 },
  userfaultfd: { x64: 323, arm64: 282 },
  init_module: { x64: 175, arm64: 105 },
  finit_module: { x64: 313, arm64: 273 },
  delete_module: { x64: 176, arm64: 106 },
  kexec_load: { x64: 246, arm64: 104 },
  kexec_file_load: { x64: 320, arm64: 294 },
  reboot: { x64: 169, arm64: 142 },
  swapon: { x64: 167, arm64: 224 },
  swapoff: { x64: 168, arm64: 225 },
  acct: { x64: 163, arm64: 89 },
  syslog: { x64: 103, arm64: 116 },
  quotactl: { x64: 179, arm64: 60 },
  quotactl_fd: { x64: 443, arm64: 443 },
  open_by_handle_at: { x64: 304, arm64: 265 },
  name_to_handle_at: { x64: 303, arm64: 264 },
  lookup_dcookie: { x64: 212, arm64: 18 },
  fanotify_init: { x64: 300, arm64: 262 },
  iopl: { x64: 172, arm64: null },
  ioperm: { x64: 173, arm64: null },
  uselib: { x64: 134, arm64: null },
  nfsservctl: { x64: 180, arm64: 42 },
  settimeofday: { x64: 164, arm64: 170 },
  clock_settime: { x64: 227, arm64: 112 },
  clock_adjtime: { x64: 305, arm64: 266 },
  adjtimex: { x64: 159, arm64: 171 },
  vhangup: { x64: 153, arm64: 58 },
  open_tree: { x64: 428, arm64: 428 },
  move_mount: { x64: 429, arm64: 429 },
  fsopen: { x64: 430, arm64: 430 },
  fsconfig: { x64: 431, arm64: 431 },
  fsmount: { x64: 432, arm64: 432 },
  fspick: { x64: 433, arm64: 433 },
  mount_setattr: { x64: 442, arm64: 442 },
  io_uring_setup: { x64: 425, arm64: 425 },
  io_uring_enter: { x64: 426, arm64: 426 },
  io_uring_register: { x64: 427, arm64: 427 },
};

const CLONE: Record<SeccompArch, number> = { x64: 56, arm64: 220 };
const CLONE3 = 435;
const IOCTL: Record<SeccompArch, number> = { x64: 16, arm64: 29 };

/** Every CLONE_NEW* flag that clone() accepts (ns, cgroup, uts, ipc, user, pid, net). */
export const CLONE_NEW_FLAGS = 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000;
const TIOCSTI = 0x5412;
const TIOCLINUX = 0x541c;

/** The syscalls the filter refuses (for docs and tests). */
export const BLOCKED_SYSCALLS = Object.keys(SYSCALLS);

const EPERM = 1;
const ENOSYS = 38;

// Classic BPF opcodes.
const LD_W_ABS = 0x20;
const JEQ_K = 0x15;
const JGE_K = 0x35;
const JSET_K = 0x45;
const RET_K = 0x06;
const RET_ALLOW = 0x7fff0000;
const RET_ERRNO = 0x00050000;

// Offsets into struct seccomp_data.
const OFF_NR = 0;
const OFF_ARCH = 4;
/** Low 32 bits of argument i (little-endian). */
const argLow = (i: number) => 16 + 8 * i;

type Target = string | number; // label, or 0 = next instruction
interface Insn {
  code: number;
  k: number;
  jt?: Target;
  jf?: Target;
  label?: string;
}

/** Resolves labels into relative jump offsets and encodes the program as `struct sock_filter[]`. */
function assemble(insns: Insn[]): Buffer {
  const at = new Map<string, number>();
  insns.forEach((insn, i) => insn.label && at.set(insn.label, i));
  const buf = Buffer.alloc(insns.length * 8);
  insns.forEach((insn, i) => {
    const rel = (t: Target | undefined): number => {
      if (t === undefined || typeof t === 'number') return t ?? 0;
      const dest = at.get(t);
      if (dest === undefined) throw new Error(`seccomp: unknown label ${t}`);
      const off = dest - i - 1;
      if (off < 0 || off > 255) throw new Error(`seccomp: jump to ${t} out of range (${off})`);
      return off;
    };
    buf.writeUInt16LE(insn.code, i * 8);
    buf.writeUInt8(rel(insn.jt), i * 8 + 2);
    buf.writeUInt8(rel(insn.jf), i * 8 + 3);
    buf.writeUInt32LE(insn.k >>> 0, i * 8 + 4);
  });
  return buf;
}

/** The architecture of this process, or null when the filter does not know it. */
export function seccompArch(arch: string = process.arch): SeccompArch | null {
  return arch === 'x64' || arch === 'arm64' ? arch : null;
}

/** Builds the filter for one architecture (little-endian; both supported arches are). */
export function buildSeccompFilter(arch: SeccompArch): Buffer {
  const p: Insn[] = [
    { code: LD_W_ABS, k: OFF_ARCH },
    { code: JEQ_K, k: AUDIT_ARCH[arch], jt: 0, jf: 'deny' },
    { code: LD_W_ABS, k: OFF_NR },
  ];
  if (arch === 'x64') p.push({ code: JGE_K, k: X32_SYSCALL_BIT, jt: 'deny', jf: 0 });
  for (const nrs of Object.values(SYSCALLS)) {
    const nr = nrs[arch];
    if (nr !== null) p.push({ code: JEQ_K, k: nr, jt: 'deny', jf: 0 });
  }
  p.push(
    { code: JEQ_K, k: CLONE[arch], jt: 'clone', jf: 0 },
    { code: JEQ_K, k: CLONE3, jt: 'nosys', jf: 0 },
    { code: JEQ_K, k: IOCTL[arch], jt: 'ioctl', jf: 0 },
    { code: RET_K, k: RET_ALLOW },
    { code: LD_W_ABS, k: argLow(0), label: 'clone' },
    { code: JSET_K, k: CLONE_NEW_FLAGS, jt: 'deny', jf: 'allow' },
    { code: LD_W_ABS, k: argLow(1), label: 'ioctl' },
    { code: JEQ_K, k: TIOCSTI, jt: 'deny', jf: 0 },
    { code: JEQ_K, k: TIOCLINUX, jt: 'deny', jf: 'allow' },
    { code: RET_K, k: RET_ERRNO | ENOSYS, label: 'nosys' },
    { code: RET_K, k: RET_ERRNO | EPERM, label: 'deny' },
    { code: RET_K, k: RET_ALLOW, label: 'allow' },
  );
  return assemble(p);
}

/**
 * Runs the filter on one syscall, as the kernel would (for tests; supports exactly the instructions
 * {@link buildSeccompFilter} emits). Returns the action word.
 */
export function evaluateSeccompFilter(prog: Buffer, data: { arch: number; nr: number; args?: number[] }): number {
  const word = (off: number): number => {
    if (off === OFF_NR) return data.nr >>> 0;
    if (off === OFF_ARCH) return data.arch >>> 0;
    const i = (off - 16) / 8;
    return (data.args?.[i] ?? 0) >>> 0;
  };
  let acc = 0;
  for (let pc = 0; pc * 8 < prog.length;) {
    const code = prog.readUInt16LE(pc * 8);
    const jt = prog.readUInt8(pc * 8 + 2);
    const jf = prog.readUInt8(pc * 8 + 3);
    const k = prog.readUInt32LE(pc * 8 + 4);
    pc++;
    switch (code) {
      case LD_W_ABS:
        acc = word(k);
        break;
      case JEQ_K:
        pc += acc === k ? jt : jf;
        break;
      case JGE_K:
        pc += acc >= k ? jt : jf;
        break;
      case JSET_K:
        pc += (acc & k) !== 0 ? jt : jf;
        break;
      case RET_K:
        return k;
      default:
        throw new Error(`seccomp: unexpected opcode ${code}`);
    }
  }
  throw new Error('seccomp: program fell off the end');
}

export const SECCOMP = { AUDIT_ARCH, SYSCALLS, CLONE, CLONE3, IOCTL, TIOCSTI, RET_ALLOW, RET_ERRNO, EPERM, ENOSYS };
