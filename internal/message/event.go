package message

import "time"

// EventType names a change.
type EventType string

// Event types. State changes are delivered to every subscriber; part deltas
// may be coalesced for a slow subscriber (the part itself then carries the
// whole text so far).
const (
	EventSessionUpdated EventType = "session_updated"
	EventSessionDeleted EventType = "session_deleted"
	EventMessageUpdated EventType = "message_updated"
	EventPartUpdated    EventType = "part_updated"
	// EventPartDelta carries streamed text appended to a text or reasoning
	// part; it is the only lossy event.
	EventPartDelta    EventType = "part_delta"
	EventQueueChanged EventType = "queue_changed"
	// EventStatus tells whether a session's loop is busy or idle.
	EventStatus    EventType = "status"
	EventRetrying  EventType = "retrying"
	EventPruned    EventType = "pruned"
	EventCompacted EventType = "compacted"
	EventError     EventType = "error"
	// EventCompacting tells that a compaction started: Compaction has its
	// reason and the tokens before, Summarising how many messages the
	// summary will replace. EventCompacted (or an EventError) follows.
	EventCompacting EventType = "compacting"
	// EventCompactionNear tells that the context passed 90% of the
	// compaction point, once per crossing, with a forecast.
	EventCompactionNear EventType = "compaction_near"
	// EventNote tells something worth a line that is not an error of the
	// turn: checkpoints are off and why, a restore finished at start-up, a
	// snapshot that failed.
	EventNote EventType = "note"
	// EventHook tells that a hook ran (internal/hooks): Hook says which,
	// what it printed for the user and whether it blocked.
	EventHook EventType = "hook"
	// EventQueueDelivered tells that queued messages were delivered as one
	// user message (Delivery says which, and in which message); the
	// EventQueueChanged that follows no longer lists them.
	EventQueueDelivered EventType = "queue_delivered"
	// EventCheckpointProgress tells how far a slow checkpoint before a
	// step's tools has got (Checkpoint: files done of total, and Skip to
	// skip it); a last one with Finished set ends it. The loop sends it
	// only for a checkpoint that has run for a while (internal/snapshot's
	// progress.go).
	EventCheckpointProgress EventType = "checkpoint_progress"
	// EventTodoReminder tells that a turn ended with todo items not done
	// and the loop gave the model one reminder step (TodoReminder says
	// what it was told); the step follows.
	EventTodoReminder EventType = "todo_reminder"
	// EventGuard tells that the loop added a step or a note of its own to
	// the turn (Guard says which and why): the check before "done"
	// (kind "verify").
	EventGuard EventType = "guard"
)

// Event is one change, published by storage (and by the loop for the
// events that are not rows: status, retrying, errors).
type Event struct {
	Type      EventType `json:"type"`
	SessionID string    `json:"session_id"`

	Session *Session `json:"session,omitempty"`
	Message *Message `json:"message,omitempty"`
	Part    *Part    `json:"part,omitempty"`
	// Delta is the text appended by an EventPartDelta.
	Delta string          `json:"delta,omitempty"`
	Queue []QueuedMessage `json:"queue,omitempty"`

	// Busy is set on EventStatus while the session's loop runs.
	Busy bool `json:"busy,omitempty"`
	// Retry, Prune and Compaction describe the loop's own events.
	Retry      *RetryInfo       `json:"retry,omitempty"`
	Prune      *PruneInfo       `json:"prune,omitempty"`
	Compaction *CompactionState `json:"compaction,omitempty"`
	// Summarising is, on EventCompacting, the number of messages being
	// summarised.
	Summarising int `json:"summarising,omitempty"`
	// Forecast describes an EventCompactionNear.
	Forecast *CompactionForecast `json:"forecast,omitempty"`
	// Err is the message of an EventError.
	Err string `json:"error,omitempty"`
	// Note is the text of an EventNote.
	Note string `json:"note,omitempty"`
	// Hook describes an EventHook.
	Hook *HookRun `json:"hook,omitempty"`
	// Delivery describes an EventQueueDelivered.
	Delivery *QueueDelivery `json:"delivery,omitempty"`
	// Checkpoint is the progress of an EventCheckpointProgress.
	Checkpoint *CheckpointProgress `json:"checkpoint,omitempty"`
	// TodoReminder describes an EventTodoReminder.
	TodoReminder *TodoReminder `json:"todo_reminder,omitempty"`
	// Guard describes an EventGuard.
	Guard *Guard `json:"guard,omitempty"`
}

// TodoReminder is the reminder a turn that ended with todo items not
// done was given: the message (the synthetic user message that starts
// the step) and how many items were open.
type TodoReminder struct {
	Text string `json:"text"`
	Open int    `json:"open"`
}

// Guard is a step or note the loop added to a turn on its own: Kind names
// the guard ("verify": the check before "done"), Text is what the model
// was told.
type Guard struct {
	Kind string `json:"kind"`
	Text string `json:"text"`
}

// QueueDelivery is a delivery of queued messages: their ids in the order
// they were coalesced (more than one: merged into one message), the user
// message that carries them, and whether it steered the running turn or
// started a turn of its own.
type QueueDelivery struct {
	IDs       []string `json:"ids"`
	MessageID string   `json:"message_id"`
	Steered   bool     `json:"steered"`
}

// HookRun is one hook that ran: the event it ran for, its command, what
// the user is shown (sanitised, bounded), and how it ended.
type HookRun struct {
	Event    string `json:"event"`
	Command  string `json:"command"`
	Source   string `json:"source,omitempty"`
	Output   string `json:"output,omitempty"`
	Blocked  bool   `json:"blocked,omitempty"`
	ExitCode int    `json:"exit_code"`
	TimedOut bool   `json:"timed_out,omitempty"`
	Error    string `json:"error,omitempty"`
	// Tool is the tool call's tool, for PreToolUse and PostToolUse.
	Tool       string `json:"tool,omitempty"`
	DurationMS int64  `json:"duration_ms"`
}

// RetryInfo describes a retry the loop is waiting for.
type RetryInfo struct {
	Attempt int           `json:"attempt"`
	Delay   time.Duration `json:"delay_ns"`
	Reason  string        `json:"reason"`
}

// PruneInfo describes one prune pass that marked tool outputs.
type PruneInfo struct {
	Parts        int   `json:"parts"`
	TokensSaved  int64 `json:"tokens_saved"`
	TokensBefore int64 `json:"tokens_before,omitempty"`
	TokensAfter  int64 `json:"tokens_after,omitempty"`
}

// CompactionForecast says when automatic compaction is expected.
type CompactionForecast struct {
	Total     int64 `json:"total"`
	CompactAt int64 `json:"compact_at"`
	// TurnsLeft is the estimated turns before compaction (0: no
	// estimate); NextStep is set when the next step is expected to
	// compact.
	TurnsLeft int  `json:"turns_left,omitempty"`
	NextStep  bool `json:"next_step,omitempty"`
	// Text says it for people: "compaction in about 3 turns".
	Text string `json:"text"`
	// Update marks a refreshed forecast after the first one of a
	// crossing: a status line shows it, a log need not repeat it.
	Update bool `json:"update,omitempty"`
}

// ContextLimit records a request the provider refused for its size: what
// we estimated it at, the calculator's total at the time, what the provider
// stated (0 when it did not say), and the ceiling and compaction point the
// session uses from then on (in our estimate's units).
type ContextLimit struct {
	Model           string `json:"model"`
	RefusedEstimate int64  `json:"refused_estimate"`
	CalculatorTotal int64  `json:"calculator_total"`
	StatedLimit     int64  `json:"stated_limit,omitempty"`
	StatedPrompt    int64  `json:"stated_prompt,omitempty"`
	Ceiling         int64  `json:"ceiling"`
	CompactAt       int64  `json:"compact_at"`
}
