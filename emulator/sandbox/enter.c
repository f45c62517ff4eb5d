/*
 * genv-sandbox-enter: the privileged first step of a sandbox call when the emulator runs as root, in
 * one process where the shell way takes four (unshare, sh, mount, setpriv: about 3 ms of every call).
 * The emulator compiles it on first use (`_enter.ts`) and is its only caller; see `_host-view.ts`
 * for the layout it builds.
 *
 *   genv-sandbox-enter [--join FILE]... [--rlimit RESOURCE=SOFT:HARD]... [--netns FD] [--args-pipe N]
 *                      TREE LOWER WORK TARGET UID GID -- PROGRAM [ARG]...
 *
 * In order, each step fatal on failure (exit 125, the step and errno on stderr):
 *   0. a session and process group of its own (the emulator kills the call by its group): Node's
 *      `detached` does the same in the forked child, but made its spawn ≈ 1 ms slower here;
 *   1. a mount namespace of its own, every mount in it private (nothing propagates to the host);
 *   2. the options, in the order given: writes 0 ("this task") to each FILE, the call's cgroups (v1
 *      `tasks`, v2 `cgroup.procs`); sets each rlimit (cpu, as, nproc, fsize, nofile, core); joins the
 *      network namespace open on FD (`_netns.ts`: fresh, made ahead, loopback up) and closes FD;
 *   3. from TREE, mounts an overlay at TARGET: lowerdir=LOWER, upperdir=., workdir=WORK, with the
 *      layer paths relative so that the sandbox's mount table names no host path, `volatile` where
 *      the kernel has it (below);
 *   4. becomes UID:GID with no supplementary groups and no capabilities left in any set;
 *   5. starts PROGRAM (bwrap), which inherits all of it, and stays its parent until every process of
 *      the call is reaped (`run_and_reap`); then exits as PROGRAM did (its status, or its signal).
 *      With --args-pipe N, the first N ARGs go to PROGRAM on a pipe instead, as `--args FD` (bwrap's
 *      way to take options that its pid 1's /proc/1/cmdline must not show): the emulator saves a
 *      socket pair per call, and this process writes them before PROGRAM starts.
 *
 *   genv-sandbox-enter --make-netns
 *
 * Makes network namespaces for `_netns.ts`: for each byte read on stdin, a new one (unshare), its
 * loopback up, then one byte written on stdout; the caller opens /proc/<pid>/ns/net before asking for
 * the next. Exits at EOF, or with its parent.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <net/if.h>
#include <linux/capability.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static void die(const char *step, const char *detail) {
  fprintf(stderr, "genv-sandbox-enter: %s%s%s: %s\n", step, detail ? " " : "", detail ? detail : "", strerror(errno));
  exit(125);
}

static void usage(const char *problem) {
  fprintf(stderr, "genv-sandbox-enter: %s\n", problem);
  exit(125);
}

static unsigned long parse_number(const char *text, const char *what) {
  char *end;
  errno = 0;
  unsigned long long value = strtoull(text, &end, 10);
  if (errno != 0 || end == text || *end != '\0' || text[0] == '-') usage(what);
  return (unsigned long)value;
}

static int resource_named(const char *name) {
  static const struct { const char *name; int resource; } known[] = {
    {"cpu", RLIMIT_CPU}, {"as", RLIMIT_AS}, {"nproc", RLIMIT_NPROC},
    {"fsize", RLIMIT_FSIZE}, {"nofile", RLIMIT_NOFILE}, {"core", RLIMIT_CORE},
  };
  for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
    if (strcmp(known[i].name, name) == 0) return known[i].resource;
  usage("--rlimit: unknown resource");
  return -1;
}

/* RESOURCE=SOFT:HARD */
static void apply_rlimit(char *spec) {
  char *equals = strchr(spec, '=');
  char *colon = equals ? strchr(equals, ':') : NULL;
  if (!equals || !colon) usage("--rlimit: expected RESOURCE=SOFT:HARD");
  *equals = '\0';
  *colon = '\0';
  struct rlimit limit = {parse_number(equals + 1, "--rlimit: bad soft limit"), parse_number(colon + 1, "--rlimit: bad hard limit")};
  if (setrlimit(resource_named(spec), &limit) != 0) die("setrlimit", spec);
}

static void join_cgroup(const char *file) {
  int fd = open(file, O_WRONLY | O_CLOEXEC);
  if (fd < 0) die("open", file);
  if (write(fd, "0", 1) != 1) die("write", file);
  close(fd);
}

static void drop_to(uid_t uid, gid_t gid) {
  if (setgroups(0, NULL) != 0) die("setgroups", NULL);
  if (setresgid(gid, gid, gid) != 0) die("setresgid", NULL);
  // Inheritable and ambient sets first, while root may still change them; setresuid to a non-zero
  // uid then empties the permitted and effective sets.
  if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0 && errno != EINVAL) die("prctl", "PR_CAP_AMBIENT_CLEAR_ALL");
  struct __user_cap_header_struct header = {_LINUX_CAPABILITY_VERSION_3, 0};
  struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];
  if (syscall(SYS_capget, &header, data) != 0) die("capget", NULL);
  for (int i = 0; i < _LINUX_CAPABILITY_U32S_3; i++) data[i].inheritable = 0;
  if (syscall(SYS_capset, &header, data) != 0) die("capset", NULL);
  if (setresuid(uid, uid, uid) != 0) die("setresuid", NULL);
  if (syscall(SYS_capget, &header, data) != 0) die("capget", NULL);
  for (int i = 0; i < _LINUX_CAPABILITY_U32S_3; i++) {
    if (data[i].effective || data[i].permitted || data[i].inheritable) {
      errno = EPERM;
      die("capabilities", "still held after the user switch");
    }
  }
}

/*
 * The overlay's `volatile` option: nothing on it syncs the upper file system. Without it, the unmount
 * at the end of every call (the sandbox's last process exiting) runs syncfs on the tree's whole file
 * system, a journal commit that kept a call's last process alive for up to ≈ 15 ms on a busy disk. A
 * call's files are in the page cache either way; what `volatile` gives up is an fsync inside the
 * sandbox reaching the disk before a host crash. A volatile mount leaves WORK/work/incompat/volatile
 * behind, and the next mount refuses a work directory that has it: it is removed first (the work
 * directory is root's, beside the tree, and calls on a tree run one at a time).
 */
static int mount_overlay(const char *target, const char *lower, const char *work) {
  char options[4096], marker[4096];
  static const char *const leftovers[] = {"work/incompat/volatile/dirty", "work/incompat/volatile", "work/incompat"};
  for (size_t i = 0; i < sizeof leftovers / sizeof leftovers[0]; i++) {
    int length = snprintf(marker, sizeof marker, "%s/%s", work, leftovers[i]);
    if (length < 0 || (size_t)length >= sizeof marker) usage("WORK is too long");
    if ((i == 0 ? unlink(marker) : rmdir(marker)) != 0 && errno != ENOENT) die("remove", marker);
  }
  int length = snprintf(options, sizeof options, "lowerdir=%s,upperdir=.,workdir=%s,volatile", lower, work);
  if (length < 0 || (size_t)length >= sizeof options) usage("LOWER and WORK are too long");
  if (mount("genv-tree", target, "overlay", 0, options) == 0) return 0;
  if (errno != EINVAL) return -1;
  options[length - strlen(",volatile")] = '\0'; // a kernel before 5.10
  return mount("genv-tree", target, "overlay", 0, options);
}

/* PROGRAM [ARG]... with its first `count` ARGs moved onto a pipe: PROGRAM --args FD [the rest]. */
static char **args_on_pipe(char **program, unsigned long count) {
  size_t total = 0, given = 0;
  while (program[given + 1] != NULL) given++;
  if (count > given) usage("--args-pipe: more than PROGRAM's arguments");
  for (unsigned long i = 1; i <= count; i++) total += strlen(program[i]) + 1;
  int ends[2];
  if (pipe2(ends, O_CLOEXEC) != 0) die("pipe2", NULL);
  // All of it fits before PROGRAM reads: the pipe grows to hold it (up to /proc/sys/fs/pipe-max-size).
  if (total > 65536 && fcntl(ends[1], F_SETPIPE_SZ, (int)total) < 0) die("fcntl", "F_SETPIPE_SZ");
  for (unsigned long i = 1; i <= count; i++) {
    const char *arg = program[i];
    size_t left = strlen(arg) + 1;
    while (left > 0) {
      ssize_t written = write(ends[1], arg, left);
      if (written < 0 && errno == EINTR) continue;
      if (written <= 0) die("write", "--args-pipe");
      arg += written;
      left -= (size_t)written;
    }
  }
  close(ends[1]);
  if (fcntl(ends[0], F_SETFD, 0) != 0) die("fcntl", "F_SETFD");
  static char descriptor[16];
  snprintf(descriptor, sizeof descriptor, "%d", ends[0]);
  char **moved = calloc(given - count + 4, sizeof *moved);
  if (!moved) die("calloc", NULL);
  moved[0] = program[0];
  moved[1] = "--args";
  moved[2] = descriptor;
  for (size_t i = count + 1; i <= given; i++) moved[i - count + 2] = program[i];
  return moved;
}

static void join_netns(const char *descriptor) {
  unsigned long fd = parse_number(descriptor, "--netns: not a descriptor");
  if (fd > 1024 * 1024) usage("--netns: not a descriptor");
  if (setns((int)fd, CLONE_NEWNET) != 0) die("setns", "--netns");
  close((int)fd);
}

/* Loopback up, as bwrap does in the network namespace it makes: the kernel gives it 127.0.0.1/8 and ::1. */
static void loopback_up(void) {
  int sock = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (sock < 0) die("socket", NULL);
  struct ifreq request;
  memset(&request, 0, sizeof request);
  strcpy(request.ifr_name, "lo");
  if (ioctl(sock, SIOCGIFFLAGS, &request) != 0) die("ioctl", "SIOCGIFFLAGS lo");
  request.ifr_flags |= IFF_UP | IFF_RUNNING;
  if (ioctl(sock, SIOCSIFFLAGS, &request) != 0) die("ioctl", "SIOCSIFFLAGS lo");
  close(sock);
}

static int make_network_namespaces(void) {
  // With its parent: a parent gone before this line closed stdin, which ends the loop all the same.
  if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0) die("prctl", "PR_SET_PDEATHSIG");
  char request;
  for (;;) {
    ssize_t got = read(0, &request, 1);
    if (got == 0) return 0;
    if (got < 0) {
      if (errno == EINTR) continue;
      die("read", "stdin");
    }
    if (unshare(CLONE_NEWNET) != 0) die("unshare", "CLONE_NEWNET");
    loopback_up();
    if (write(1, "n", 1) != 1) die("write", "stdout");
  }
}

/*
 * bwrap's monitor exits as soon as the command has; the sandbox's pid 1 then dies (--die-with-parent)
 * and takes the call's mounts and namespaces with it, after the emulator has seen the monitor exit and
 * the output end. The emulator then polled the call's cgroup until it was empty, ≈ 0.8 ms of its CPU per
 * call. As a subreaper, this process gets pid 1 when the monitor exits and reaps it, so it exits when
 * the call's last process is gone, and the emulator finds the cgroup empty at its first look. It runs as
 * the sandbox's host user by then, holding no descriptor of the call's (closed below).
 */
static int run_and_reap(char **program) {
  if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0) die("prctl", "PR_SET_CHILD_SUBREAPER");
  pid_t parent = getpid();
  pid_t child = fork();
  if (child < 0) die("fork", NULL);
  if (child == 0) {
    // Killed with this process (the emulator's kill of the call's process group reaches both anyway).
    if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0 || getppid() != parent) die("prctl", "PR_SET_PDEATHSIG");
    execv(program[0], program);
    die("exec", program[0]);
  }
  if (syscall(SYS_close_range, 0U, ~0U, 0U) != 0)
    for (int fd = 0; fd < 1024; fd++) close(fd);
  int status, program_status = 0;
  for (;;) {
    pid_t reaped = waitpid(-1, &status, 0);
    if (reaped == child) program_status = status;
    if (reaped < 0 && errno == ECHILD) break;
  }
  if (WIFSIGNALED(program_status)) {
    signal(WTERMSIG(program_status), SIG_DFL);
    kill(getpid(), WTERMSIG(program_status));
  }
  return WIFEXITED(program_status) ? WEXITSTATUS(program_status) : 125;
}

int main(int argc, char **argv) {
  if (argc == 2 && strcmp(argv[1], "--make-netns") == 0) return make_network_namespaces();
  int i = 1;
  // Options are applied after the namespace exists, in the order given; collect them first.
  int first_option = i;
  while (i < argc && strncmp(argv[i], "--", 2) == 0 && argv[i][2] != '\0') {
    if (i + 1 >= argc) usage("an option needs a value");
    if (strcmp(argv[i], "--join") != 0 && strcmp(argv[i], "--rlimit") != 0 && strcmp(argv[i], "--netns") != 0 && strcmp(argv[i], "--args-pipe") != 0) usage("unknown option");
    i += 2;
  }
  int last_option = i;
  if (argc - i < 8 || strcmp(argv[i + 6], "--") != 0) usage("expected TREE LOWER WORK TARGET UID GID -- PROGRAM [ARG]...");
  const char *tree = argv[i], *lower = argv[i + 1], *work = argv[i + 2], *target = argv[i + 3];
  unsigned long uid_number = parse_number(argv[i + 4], "UID: not a number");
  unsigned long gid_number = parse_number(argv[i + 5], "GID: not a number");
  // (uid_t)-1 means "unchanged" to setresuid, and larger values would wrap.
  if (uid_number >= (uid_t)-1 || gid_number >= (gid_t)-1) usage("UID and GID must be below 4294967295");
  uid_t uid = (uid_t)uid_number;
  gid_t gid = (gid_t)gid_number;
  if (uid == 0 || gid == 0) usage("UID and GID must not be 0: the sandbox never runs as root");
  char **program = &argv[i + 7];

  if (setsid() < 0 && errno != EPERM) die("setsid", NULL); // EPERM: a group leader already
  if (unshare(CLONE_NEWNS) != 0) die("unshare", "CLONE_NEWNS");
  if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) die("mount", "--make-rprivate /");
  for (int o = first_option; o < last_option; o += 2) {
    if (strcmp(argv[o], "--join") == 0) join_cgroup(argv[o + 1]);
    else if (strcmp(argv[o], "--netns") == 0) join_netns(argv[o + 1]);
    else if (strcmp(argv[o], "--args-pipe") == 0) continue; // below, once PROGRAM is known
    else apply_rlimit(argv[o + 1]);
  }

  if (chdir(tree) != 0) die("chdir", tree);
  if (strchr(lower, ',') || strchr(work, ',')) usage("LOWER and WORK must not contain a comma");
  if (mount_overlay(target, lower, work) != 0) die("mount overlay at", target);
  if (chdir("/") != 0) die("chdir", "/");

  drop_to(uid, gid);
  for (int o = first_option; o < last_option; o += 2)
    if (strcmp(argv[o], "--args-pipe") == 0) program = args_on_pipe(program, parse_number(argv[o + 1], "--args-pipe: not a count"));
  return run_and_reap(program);
}
