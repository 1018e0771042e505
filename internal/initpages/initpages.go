// Package initpages gives back the executable's pages that the start of the
// process faulted in: the Go runtime's set-up and every linked package's
// init (170 of them in the agent) touch code, read-only data and the
// function tables spread over the whole binary, and Linux maps each of
// those pages with its neighbours (fault-around: 64 KiB at a time), so
// that 13 MiB of a 32 MB binary is resident before main runs, most of it
// code that never runs again. Release drops them; what the command then
// runs is faulted in again from the page cache (minor faults, no I/O).
//
// Contract: Release touches only the executable's own read-only mappings
// (code and read-only data, matched by the file's device and inode), never
// a writable one, so no state is lost: a dropped page reads back the same
// bytes from the file. It is best effort and silent: on another system, or
// when /proc cannot be read, it does nothing. It costs one read of
// /proc/self/maps and a system call per mapping (≈ 50 µs).
package initpages
