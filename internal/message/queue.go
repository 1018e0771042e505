package message

// QueueKind says when a message typed while the loop is busy is delivered.
type QueueKind string

// The kinds of queued message.
const (
	// KindSteer is injected at the next step of the running turn
	// (coalesced with the other steering messages): Enter while busy.
	KindSteer QueueKind = "steer"
	// KindQueue waits until the running turn ends, then starts a turn of
	// its own: Tab while busy.
	KindQueue QueueKind = "queue"
)

// Steers reports whether a queued message steers the running turn. An
// empty kind (a row written before kinds existed) steers, as every queued
// message did then.
func (q *QueuedMessage) Steers() bool { return q.Kind != KindQueue }

// Valid reports whether k is a known kind.
func (k QueueKind) Valid() bool { return k == KindSteer || k == KindQueue }
