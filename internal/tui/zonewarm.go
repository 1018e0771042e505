package tui

// The local time zone, loaded while the first message is typed. Go reads
// it (/etc/localtime, or $TZ's file) on its first use in the process, and
// in a new chat that use is the system prompt's date (loop's prompt.go),
// made on the way from Enter to the first request: 70–100 µs of file
// reading and parsing there. The editor's first key loads it on a
// goroutine of its own (envPrefetch.start); later keys, and later chats
// in the process, find it loaded.

import (
	"sync"
	"time"
)

var zoneOnce sync.Once

// warmZone starts loading time.Local, once per process. A variable so
// that a test can see it called.
var warmZone = func() {
	zoneOnce.Do(func() {
		go func() { _ = time.Local.String() }()
	})
}
