package loop

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ctxloop/agent/internal/hooks"
	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/storage"
	"github.com/ctxloop/agent/internal/tools"
)

// racingStore is a real store whose first deliveries fail as if the queue
// had changed under them (an edit from the chat).
type racingStore struct {
	*storage.Store
	races int
}

func (s *racingStore) DeliverQueued(ctx context.Context, ids []string, m *message.Message, parts []*message.Part) error {
	if s.races > 0 {
		s.races--
		return storage.ErrQueueChanged
	}
	return s.Store.DeliverQueued(ctx, ids, m, parts)
}

// inboxRig is an inbox over a real store in a temporary directory; no
// Runner.
type inboxRig struct {
	in     *inbox
	st     *racingStore
	sess   message.Session
	events []message.Event
	added  []message.Message
	texts  []string
}

func newInboxRig(t *testing.T, hs ...hooks.Hook) *inboxRig {
	t.Helper()
	ctx := context.Background()
	st, err := storage.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	rig := &inboxRig{st: &racingStore{Store: st}}
	rig.sess = message.Session{ID: message.NewID(), Model: "m", CreatedAt: time.Now(), UpdatedAt: time.Now()}
	if err := st.CreateSession(ctx, &rig.sess); err != nil {
		t.Fatal(err)
	}
	hr, _ := hooks.New(hs, hooks.Options{})
	emit := func(ev message.Event) { rig.events = append(rig.events, ev) }
	session := func() string { return rig.sess.ID }
	hp := newHookPoints(hookDeps{hooks: hr, session: session, emit: emit, note: func(string) {},
		addSynthetic: func(context.Context, string) error { return nil }})
	rig.in = &inbox{inboxDeps{store: rig.st, session: session, model: func() string { return "m" }, emit: emit,
		emitQueue: func(context.Context) { emit(message.Event{Type: message.EventQueueChanged}) }, hooks: hp,
		added: func(_ context.Context, m message.Message, parts []message.Part, _ bool) {
			rig.added = append(rig.added, m)
			rig.texts = append(rig.texts, parts[0].Text)
		},
		env: &tools.Env{Dir: t.TempDir()}, registry: func() *tools.Registry { return tools.NewRegistry() }}}
	return rig
}

func (rig *inboxRig) enqueue(t *testing.T, text string, kind message.QueueKind) {
	t.Helper()
	if _, err := rig.st.EnqueueKind(context.Background(), rig.sess.ID, text, kind); err != nil {
		t.Fatal(err)
	}
}

func (rig *inboxRig) queued(t *testing.T) []string {
	t.Helper()
	q, err := rig.st.ListQueue(context.Background(), rig.sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, m := range q {
		texts = append(texts, m.Text)
	}
	return texts
}

func TestInboxDeliversSteeringBetweenStepsAndOneQueuedAtTheEnd(t *testing.T) {
	rig := newInboxRig(t)
	ctx := context.Background()
	rig.enqueue(t, "later", message.KindQueue)
	rig.enqueue(t, "use tabs", message.KindSteer)
	rig.enqueue(t, "and run the tests", message.KindSteer)
	rig.enqueue(t, "even later", message.KindQueue)
	if ok, err := rig.in.inject(ctx, false); !ok || err != nil {
		t.Fatalf("inject between steps = %v, %v", ok, err)
	}
	if !rig.in.waiting(ctx) {
		t.Error("waiting = false with two messages queued for after the turn")
	}
	if ok, err := rig.in.inject(ctx, true); !ok || err != nil {
		t.Fatalf("inject at the end of the turn = %v, %v", ok, err)
	}
	want := []string{"First: use tabs\n\nAlso: and run the tests", "later"}
	if len(rig.texts) != 2 || rig.texts[0] != want[0] || rig.texts[1] != want[1] {
		t.Errorf("delivered %q; want %q", rig.texts, want)
	}
	if q := rig.queued(t); len(q) != 1 || q[0] != "even later" {
		t.Errorf("left in the queue: %q", q)
	}
	var steered []bool
	for _, ev := range rig.events {
		if ev.Type == message.EventQueueDelivered {
			steered = append(steered, ev.Delivery.Steered)
		}
	}
	if len(steered) != 2 || !steered[0] || steered[1] {
		t.Errorf("deliveries steered = %v; want [true false]", steered)
	}
	h, err := rig.st.LoadHistory(ctx, rig.sess.ID)
	if err != nil || len(h) != 2 || h[0].Message.ID != rig.added[0].ID {
		t.Errorf("stored history: %d entries, %v; want the two delivered messages", len(h), err)
	}
}

func TestInboxRetriesADeliveryThatRacedAnEdit(t *testing.T) {
	rig := newInboxRig(t)
	ctx := context.Background()
	rig.enqueue(t, "steer", message.KindSteer)
	rig.st.races = deliveryAttempts - 1
	if ok, err := rig.in.inject(ctx, false); !ok || err != nil {
		t.Fatalf("inject after %d races = %v, %v; want delivered", deliveryAttempts-1, ok, err)
	}
	rig.enqueue(t, "again", message.KindSteer)
	rig.st.races = deliveryAttempts
	ok, err := rig.in.inject(ctx, false)
	if ok || !errors.Is(err, storage.ErrQueueChanged) {
		t.Fatalf("inject after %d races = %v, %v; want ErrQueueChanged", deliveryAttempts, ok, err)
	}
	if q := rig.queued(t); len(q) != 1 || q[0] != "again" {
		t.Errorf("queue after a failed delivery: %q; want the message kept", q)
	}
}

func TestInboxDropsQueuedMessagesAPromptHookBlocks(t *testing.T) {
	rig := newInboxRig(t, hooks.Hook{Event: hooks.UserPromptSubmit, Command: `echo "no secrets in prompts" >&2; exit 2`})
	ctx := context.Background()
	rig.enqueue(t, "here is my password", message.KindSteer)
	ok, err := rig.in.inject(ctx, false)
	if ok || err != nil {
		t.Fatalf("inject = %v, %v; want nothing delivered, no error", ok, err)
	}
	if q := rig.queued(t); len(q) != 0 || len(rig.added) != 0 {
		t.Errorf("queue %q, added %d; want the blocked message gone and nothing stored", q, len(rig.added))
	}
	var told bool
	for _, ev := range rig.events {
		told = told || ev.Type == message.EventError && ev.SessionID == rig.sess.ID &&
			strings.Contains(ev.Err, ErrPromptBlocked.Error()) && strings.Contains(ev.Err, "no secrets in prompts")
	}
	if !told {
		t.Errorf("the user was not told why: %+v", rig.events)
	}
}
