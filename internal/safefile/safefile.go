// Package safefile reads the files the agent reads on its own — instruction
// files (AGENTS.md), configuration files, custom command files, git's
// configuration, --image files — by the rules the tools follow, because a
// cloned repository controls most of them:
//
//   - Links are resolved, and the file they lead to must lie inside its
//     home: the project for a project's file, the file's own directory for
//     a user-level one (ErrOutside). A repository's AGENTS.md linked to
//     ~/.ssh/id_rsa or /proc/self/environ is refused, never read.
//   - Only a regular file is read (ErrNotRegular): a FIFO, a device
//     (/dev/zero), a socket, a directory or a file in /proc or /sys is
//     refused without blocking on it. The file is opened non-blocking and checked again with fstat, so
//     one swapped in after the check is refused too.
//   - At most maxBytes are read (ErrTooLarge): a file that grows without
//     end cannot grow the process.
//   - The read is cancellable: ctx is checked between chunks.
//
// A missing file is an error wrapping fs.ErrNotExist, as from os.ReadFile,
// so that callers can tell "not there" (stay quiet) from "refused" (say
// so: Warning names the file and the reason in one line).
package safefile

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// The reasons a file is refused; the errors Read returns wrap one of them.
var (
	ErrOutside    = errors.New("it is a link that leads outside")
	ErrNotRegular = errors.New("not a regular file")
	ErrTooLarge   = errors.New("too large")
)

// Error is a refusal (or a failure) to read a file: Path is the file as
// the caller named it.
type Error struct {
	Path string
	// Err wraps ErrOutside, ErrNotRegular or ErrTooLarge, or is the
	// operating system's error.
	Err error
}

func (e *Error) Error() string { return e.Path + ": " + e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// Refused reports whether err is one of Read's refusals (a link leading
// outside, not a regular file, too large) rather than a missing file or
// an I/O error.
func Refused(err error) bool {
	return errors.Is(err, ErrOutside) || errors.Is(err, ErrNotRegular) || errors.Is(err, ErrTooLarge)
}

// Warning is the one-line message for a file that is not used because of
// err (from Read): "PATH is skipped: REASON".
func Warning(path string, err error) string {
	var e *Error
	if errors.As(err, &e) {
		err = e.Err
	}
	return fmt.Sprintf("%s is skipped: %v", path, err)
}

// chunkBytes is how much is read between two checks of the context.
const chunkBytes = 64 << 10

// Read reads the regular file at path, following links, refusing one whose
// real path is not inside home (when home is not ""; home's own links are
// resolved first), anything but a regular file, and a file larger than
// maxBytes. It never blocks on a FIFO or a device, and it stops when ctx
// is done.
func Read(ctx context.Context, path, home string, maxBytes int64) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, &Error{Path: path, Err: err}
	}
	f, info, err := Open(path, home)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if info.Size() > maxBytes {
		return nil, &Error{Path: path, Err: tooLarge(maxBytes)}
	}
	return readLimited(ctx, f, path, maxBytes)
}

// Open opens the regular file at path for reading by Read's rules (links
// resolved and kept inside home, regular files only, never blocking on a
// FIFO or a device), for a caller that reads only part of it. info is the
// opened file's; the caller closes f.
func Open(path, home string) (f *os.File, info fs.FileInfo, err error) {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return nil, nil, &Error{Path: path, Err: unwrapPath(err)}
	}
	if real, err = filepath.Abs(real); err != nil {
		return nil, nil, &Error{Path: path, Err: err}
	}
	if home != "" {
		root, err := filepath.EvalSymlinks(home)
		if err != nil {
			root = filepath.Clean(home)
		}
		if root, err = filepath.Abs(root); err != nil || !Within(root, real) {
			return nil, nil, &Error{Path: path, Err: fmt.Errorf("%w %s", ErrOutside, root)}
		}
	}
	if pseudo(real) {
		return nil, nil, &Error{Path: path, Err: fmt.Errorf("%w (a kernel pseudo-file, %s)", ErrNotRegular, real)}
	}
	if info, err := os.Stat(real); err != nil {
		return nil, nil, &Error{Path: path, Err: unwrapPath(err)}
	} else if !info.Mode().IsRegular() {
		return nil, nil, &Error{Path: path, Err: notRegular(info.Mode())}
	}
	// O_NOFOLLOW: real has no link left in it; one swapped in since is
	// refused (ELOOP) rather than followed.
	f, err = os.OpenFile(real, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOFOLLOW, 0)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) {
			err = fmt.Errorf("%w: it changed while being opened", ErrNotRegular)
		}
		return nil, nil, &Error{Path: path, Err: unwrapPath(err)}
	}
	info, err = f.Stat()
	if err == nil && !info.Mode().IsRegular() {
		err = notRegular(info.Mode())
	}
	// A directory above real swapped for a link since it was resolved
	// would let the open land elsewhere: what was opened must be what is
	// at real, and real must still be free of links.
	if r, rerr := filepath.EvalSymlinks(real); err == nil && (rerr != nil || r != real) {
		err = fmt.Errorf("%w: it changed while being opened", ErrOutside)
	}
	if err != nil {
		f.Close()
		return nil, nil, &Error{Path: path, Err: err}
	}
	return f, info, nil
}

// readLimited reads f to its end in chunks, checking ctx between them, and
// refuses it when it has more than maxBytes (a file in /proc says size 0
// and may have any length).
func readLimited(ctx context.Context, f *os.File, path string, maxBytes int64) ([]byte, error) {
	var data []byte
	buf := make([]byte, min(chunkBytes, maxBytes+1))
	for {
		if err := ctx.Err(); err != nil {
			return nil, &Error{Path: path, Err: err}
		}
		n, err := f.Read(buf)
		data = append(data, buf[:n]...)
		if int64(len(data)) > maxBytes {
			return nil, &Error{Path: path, Err: tooLarge(maxBytes)}
		}
		if err == io.EOF {
			return data, nil
		}
		if err != nil {
			return nil, &Error{Path: path, Err: unwrapPath(err)}
		}
	}
}

// pseudo reports whether real is in /proc or /sys, whose files say they
// are regular (of size 0) but hold the process's environment, memory and
// the like: never an instruction, a configuration or an image, whatever
// the home (a project at /).
func pseudo(real string) bool {
	return Within("/proc", real) || Within("/sys", real)
}

// Within reports whether path lies in dir or under it (both clean and
// absolute).
func Within(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

func tooLarge(maxBytes int64) error {
	if maxBytes >= 1<<20 && maxBytes%(1<<20) == 0 {
		return fmt.Errorf("%w (over %d MB)", ErrTooLarge, maxBytes>>20)
	}
	if maxBytes >= 1<<10 && maxBytes%(1<<10) == 0 {
		return fmt.Errorf("%w (over %d KB)", ErrTooLarge, maxBytes>>10)
	}
	return fmt.Errorf("%w (over %d bytes)", ErrTooLarge, maxBytes)
}

func notRegular(m fs.FileMode) error {
	return fmt.Errorf("%w (%s)", ErrNotRegular, Kind(m))
}

// Kind names a file's type for messages ("a named pipe (FIFO)").
func Kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m.IsRegular():
		return "a regular file"
	}
	return "an irregular file"
}

// unwrapPath drops the *fs.PathError around an error: Error names the path
// already.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
