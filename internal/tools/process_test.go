package tools

import (
	"context"
	"encoding/json"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

func TestGroupIsOurs(t *testing.T) {
	rec := ProcessGroup{PGID: 100, StartTicks: 5000, BootID: "boot-a"}
	leader := processInfo{pid: 100, pgrp: 100, startTicks: 5000}
	child := processInfo{pid: 101, pgrp: 100, startTicks: 5001}
	for _, tc := range []struct {
		name  string
		g     ProcessGroup
		procs []processInfo
		boot  string
		want  bool
	}{
		{"leader alive, same start", rec, []processInfo{leader, child}, "boot-a", true},
		{"leader gone, members started after it", rec, []processInfo{child}, "boot-a", true},
		{"leader reused: another start time", rec, []processInfo{{pid: 100, pgrp: 100, startTicks: 9000}}, "boot-a", false},
		{"leader gone, a member older than the group", rec, []processInfo{child, {pid: 90, pgrp: 100, startTicks: 4000}}, "boot-a", false},
		{"no live member", rec, []processInfo{{pid: 101, pgrp: 100, startTicks: 5001, zombie: true}, {pid: 7, pgrp: 7, startTicks: 1}}, "boot-a", false},
		{"another boot", rec, []processInfo{leader}, "boot-b", false},
		{"nothing recorded to compare", ProcessGroup{PGID: 100}, []processInfo{leader}, "boot-a", false},
		{"never init's group", ProcessGroup{PGID: 1, StartTicks: 1}, []processInfo{{pid: 1, pgrp: 1, startTicks: 1}}, "", false},
	} {
		if got := groupIsOurs(tc.g, tc.procs, tc.boot); got != tc.want {
			t.Errorf("%s: groupIsOurs = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestParseStat(t *testing.T) {
	line := "4242 (we(ird) name) S 1 4240 4240 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 987654 1000 10 18446744073709551615\n"
	p, ok := parseStat(4242, []byte(line))
	if !ok || p.pgrp != 4240 || p.startTicks != 987654 || p.zombie {
		t.Fatalf("parseStat = %+v, %v", p, ok)
	}
	if _, ok := parseStat(1, []byte("1 (x) S 0")); ok {
		t.Fatal("a short line parsed")
	}
}

// TestStopProcessGroup stops a recorded live group, and leaves alone a
// group whose leader's start time does not match the record.
func TestStopProcessGroup(t *testing.T) {
	start := func() *exec.Cmd {
		cmd := exec.Command("bash", "-c", "sleep 30 & sleep 30")
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); cmd.Wait() })
		return cmd
	}
	cmd := start()
	g := processGroupOf(cmd.Process.Pid)
	if g.StartTicks == 0 || g.BootID == "" {
		t.Fatalf("processGroupOf = %+v", g)
	}
	reused := g
	reused.StartTicks--
	if killed, err := StopProcessGroup(reused); killed || err != nil {
		t.Fatalf("StopProcessGroup(another start time) = %v, %v", killed, err)
	}
	if killed, err := StopProcessGroup(g); !killed || err != nil {
		t.Fatalf("StopProcessGroup = %v, %v", killed, err)
	}
	cmd.Wait()
	procs, _, _ := listProcesses()
	if live := liveMembers(g.PGID, procs); len(live) > 0 {
		t.Fatalf("group %d still has %v", g.PGID, live)
	}
}

// TestBashReportsItsProcessGroup: Call.Started receives bash's group as
// soon as it runs.
func TestBashReportsItsProcessGroup(t *testing.T) {
	env := newEnv(t)
	var got []ProcessGroup
	res := NewRegistry().Run(context.Background(), env, Call{
		ID: "c", Name: "bash", Input: json.RawMessage(`{"command":"echo $$"}`),
		Started: func(g ProcessGroup) { got = append(got, g) },
	})
	pid, _ := strconv.Atoi(strings.SplitN(res.Output, "\n", 2)[0])
	if len(got) != 1 || got[0].PGID != pid || got[0].StartTicks == 0 {
		t.Fatalf("Started got %+v, bash was %d", got, pid)
	}
}
