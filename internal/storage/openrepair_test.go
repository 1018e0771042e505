package storage

import (
	"context"
	"encoding/json"
	"errors"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/ctxloop/agent/internal/message"
)

// crashedSession leaves in a data dir what a kill -9 mid-turn does: an
// unfinished assistant message, a stream with flushed deltas, and, with
// tools, a pending and a running tool part; the dead owner's lease aged.
// It returns the dir (closed) and the session's id.
func crashedSession(t *testing.T, tools bool) (string, string) {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	s := openAt(t, dir)
	sess, m := newSession(t, s, "/w")
	open := &message.Message{SessionID: sess.ID, Role: message.RoleAssistant, FinishReason: "tool_calls"}
	if err := s.CreateMessage(ctx, open); err != nil {
		t.Fatal(err)
	}
	for _, status := range []message.ToolStatus{message.ToolCompleted, message.ToolPending, message.ToolRunning} {
		if !tools && status != message.ToolCompleted {
			continue
		}
		p := &message.Part{SessionID: sess.ID, MessageID: m.ID, Type: message.PartTool,
			Tool: &message.ToolState{CallID: string(status), Name: "bash", Status: status, Output: "out"}}
		if err := s.UpsertPart(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	stream, err := s.NewTextStream(ctx, &message.Part{SessionID: sess.ID, MessageID: open.ID, Type: message.PartText})
	if err != nil {
		t.Fatal(err)
	}
	stream.Append("persisted")
	if err := stream.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := s.AcquireLease(ctx, sess.ID); err != nil {
		t.Fatal(err)
	}
	crash(t, s)
	s = openAt(t, dir)
	if _, err := s.db.Exec(`UPDATE leases SET heartbeat_at = 1`); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return dir, sess.ID
}

// copyDir copies a closed data dir.
func copyDir(t *testing.T, dir string) string {
	t.Helper()
	to := filepath.Join(t.TempDir(), "copy")
	if out, err := exec.Command("cp", "-r", dir, to).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v: %s", err, out)
	}
	return to
}

// repairedHistory is a session's history as JSON with the repair's
// clock readings zeroed (two repairs run at different times).
func repairedHistory(t *testing.T, s *Store, sessionID string) string {
	t.Helper()
	h, err := s.LoadHistory(context.Background(), sessionID)
	if err != nil {
		t.Fatal(err)
	}
	for i := range h {
		e := &h[i]
		e.Message.UpdatedAt, e.Message.FinishedAt = time.Time{}, time.Time{}
		for j := range e.Parts {
			p := &e.Parts[j]
			p.UpdatedAt = time.Time{}
			if p.Tool != nil {
				p.Tool.EndedAt = time.Time{}
			}
		}
	}
	b, err := json.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestAcquireRepairedRepairsAsRepairSession: AcquireRepaired leaves the
// session as AcquireLease then RepairSession do (differentially, on two
// copies of one crashed data dir), with the same counts and events, and
// holds the lease; with unfinished tool parts it repairs nothing and
// returns them, and RepairSession after it gives the old path's result.
func TestAcquireRepairedRepairsAsRepairSession(t *testing.T) {
	ctx := context.Background()
	for _, tools := range []bool{false, true} {
		t.Run(map[bool]string{false: "clean-tools", true: "unfinished-tools"}[tools], func(t *testing.T) {
			dir, id := crashedSession(t, tools)
			old, now := openAt(t, copyDir(t, dir)), openAt(t, dir)
			defer old.Close()
			defer now.Close()

			l, err := old.AcquireLease(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			defer l.Release()
			wantUnfinished, err := unfinishedTools(ctx, old.rdb, id)
			if err != nil {
				t.Fatal(err)
			}
			wantRepair, err := old.RepairSession(ctx, id)
			if err != nil {
				t.Fatal(err)
			}

			w := watch(t, now)
			l2, r, unfinished, err := now.AcquireRepaired(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			defer l2.Release()
			if len(unfinished) != len(wantUnfinished) {
				t.Fatalf("unfinished = %d parts, want %d", len(unfinished), len(wantUnfinished))
			}
			for i := range unfinished {
				if unfinished[i].ID != wantUnfinished[i].ID || unfinished[i].Tool.Status != wantUnfinished[i].Tool.Status {
					t.Errorf("unfinished[%d] = %s %s, want %s %s", i, unfinished[i].ID, unfinished[i].Tool.Status,
						wantUnfinished[i].ID, wantUnfinished[i].Tool.Status)
				}
			}
			if tools {
				if !r.IsZero() {
					t.Errorf("with unfinished tools AcquireRepaired repaired %+v, want nothing", r)
				}
				if r, err = now.RepairSession(ctx, id); err != nil {
					t.Fatalf("RepairSession under AcquireRepaired's lease: %v", err)
				}
			} else {
				for range r.Streams {
					w.next(t, ofType(message.EventPartUpdated))
				}
				for range r.Messages {
					w.next(t, ofType(message.EventMessageUpdated))
				}
			}
			if r != wantRepair || wantRepair.IsZero() {
				t.Errorf("Repair = %+v, want %+v (not zero)", r, wantRepair)
			}
			if got, want := repairedHistory(t, now, id), repairedHistory(t, old, id); got != want {
				t.Errorf("history after AcquireRepaired:\n%s\nafter AcquireLease+RepairSession:\n%s", got, want)
			}
			// The lease is held: another claim is refused as busy.
			if _, _, _, err := old.AcquireRepaired(ctx, id); !errors.Is(err, ErrSessionBusy) {
				t.Errorf("a second claim: %v, want ErrSessionBusy", err)
			}
		})
	}
}

// TestAcquireRepairedRefusesABusySessionAndRepairsNothing: a live lease
// held elsewhere refuses the claim and leaves the crash's state for its
// holder.
func TestAcquireRepairedRefusesABusySessionAndRepairsNothing(t *testing.T) {
	ctx := context.Background()
	dir, id := crashedSession(t, false)
	holder, s := openAt(t, dir), openAt(t, dir)
	defer holder.Close()
	defer s.Close()
	before := repairedHistory(t, s, id)
	l, err := holder.AcquireLease(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	if _, _, _, err := s.AcquireRepaired(ctx, id); !errors.Is(err, ErrSessionBusy) {
		t.Fatalf("AcquireRepaired of a held session: %v, want ErrSessionBusy", err)
	}
	if after := repairedHistory(t, s, id); after != before {
		t.Errorf("a refused claim changed the history:\n%s\nwas\n%s", after, before)
	}
	if _, _, _, err := s.AcquireRepaired(ctx, "nope"); !errors.Is(err, ErrNotFound) {
		t.Errorf("AcquireRepaired of no session: %v, want ErrNotFound", err)
	}
}
