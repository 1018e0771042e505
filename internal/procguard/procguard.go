// Package procguard keeps the agent's own process closed to the processes
// it starts (tool commands, hooks, MCP servers, git): a hostile command
// must not read the API key out of /proc/<agent>/environ or
// /proc/<agent>/mem, where the redaction of outputs cannot help (the
// command can print the key reversed or encoded).
//
// The contract of Harden, called first thing in main, on Linux:
//
//   - The process is made non-dumpable (prctl PR_SET_DUMPABLE 0): its
//     /proc entries belong to root and are open only to a reader with
//     CAP_SYS_PTRACE, and it writes no core dump. Children are dumpable
//     again after their exec; only the agent is closed.
//   - CAP_SYS_PTRACE is dropped from the capability bounding set (prctl
//     PR_CAPBSET_DROP), which a child inherits from the thread that forked
//     it: a child running as root cannot get that capability back, so it
//     cannot read the agent's memory either (nor attach a debugger to any
//     process). The set is per thread: a build without cgo drops it on
//     every thread at once; with cgo (the default build) Go cannot, and
//     the threads that start untrusted children drop it for themselves
//     with DropPtraceForChildren (the bash tool's thread, and the spawner
//     of package childproc for hooks and MCP servers). Without
//     CAP_SETPCAP (an ordinary user) the drop fails and is not needed:
//     such children never had the capability.
//   - The values of the secret variables (secrets.Names) are overwritten
//     with '*' in the initial environment block, the one
//     /proc/<pid>/environ shows (written through /proc/self/mem between
//     env_start and env_end of /proc/self/stat). The Go runtime copied the
//     environment at start-up, so os.Getenv still returns the key. This
//     holds even where the first two cannot (a kernel or a sandbox
//     refusing the prctl calls); the key stays in the heap, which only the
//     first two protect.
//
// Nothing here is an error the user must act on: each step that the system
// refuses is skipped. Redaction (package secrets) stays the last line.
// Elsewhere Harden does nothing.
package procguard
