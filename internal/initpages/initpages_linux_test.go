package initpages

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

func TestReadOnlyMappingsOf(t *testing.T) {
	maps := []byte(`00400000-00e83000 r-xp 00000000 fe:00 12296354                           /work/bin/agent
00e83000-018b6000 r--p 00a83000 fe:00 12296354                           /work/bin/agent
018b6000-019e2000 rw-p 014b6000 fe:00 12296354                           /work/bin/agent
019e2000-03c52000 rw-p 00000000 00:00 0 
7f0000000000-7f0000001000 r--p 00000000 fe:00 999                        /usr/lib/other.so
7f0000002000-7f0000003000 r-xp 00000000 fe:01 12296354                   /mnt/same-inode-other-device
7f0000004000-7f0000005000 r--s 00000000 fe:00 12296354                   /work/bin/agent
7ffd00000000-7ffd00021000 rw-p 00000000 00:00 0                          [stack]
garbage line
`)
	got := readOnlyMappingsOf(maps, unix.Mkdev(0xfe, 0), 12296354)
	want := []mapping{{0x400000, 0xe83000}, {0xe83000, 0x18b6000}}
	if len(got) != len(want) {
		t.Fatalf("got %x, want %x", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("mapping %d: got %x, want %x", i, got[i], want[i])
		}
	}
}

// TestReleaseDropsTheExecutablesPages runs Release in this test binary:
// the resident pages of its read-only mappings go, its writable ones
// stay, and the program runs on (what it runs is faulted in again).
func TestReleaseDropsTheExecutablesPages(t *testing.T) {
	exeRSSKiB(t) // its own code resident, as it is when it measures after
	before := exeRSSKiB(t)
	if before["ro"] == 0 {
		t.Fatalf("no resident read-only pages of the executable before: %v", before)
	}
	Release()
	after := exeRSSKiB(t)
	// What runs between the drop and the count (the test, the runtime's
	// threads, the count itself) is faulted in again at once.
	if after["ro"] > before["ro"]*3/4 {
		t.Errorf("read-only pages of the executable: %d KiB resident before Release, %d after; want a quarter fewer at least", before["ro"], after["ro"])
	}
	if after["rw"] < before["rw"]*9/10 {
		t.Errorf("writable pages of the executable: %d KiB before, %d after: Release must not touch them", before["rw"], after["rw"])
	}
	if s := strings.Repeat("ok", 3); s != "okokok" { // code runs on after the drop
		t.Fatal(s)
	}
}

// exeRSSKiB sums the Rss of this executable's mappings from
// /proc/self/smaps: "ro" for the read-only ones, "rw" for the writable.
func exeRSSKiB(t *testing.T) map[string]int {
	t.Helper()
	var exe syscall.Stat_t
	if err := syscall.Stat("/proc/self/exe", &exe); err != nil {
		t.Skip(err)
	}
	b, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		t.Skip(err)
	}
	out := map[string]int{}
	kind := ""
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		switch {
		case len(f) >= 6 && strings.Contains(f[0], "-"):
			kind = ""
			if ino, _ := strconv.ParseUint(f[4], 10, 64); ino == exe.Ino {
				kind = map[bool]string{true: "rw", false: "ro"}[strings.Contains(f[1], "w")]
			}
		case len(f) >= 2 && f[0] == "Rss:" && kind != "":
			n, _ := strconv.Atoi(f[1])
			out[kind] += n
		}
	}
	return out
}
