// Package message holds the domain types of a conversation: sessions,
// messages, the parts a message is made of, queued user input and the change
// events published when any of them changes. It imports no storage code; the
// storage package persists these types and the loop, the TUI and the CLI read
// them.
//
// Parts are marked, never deleted: a pruned tool output keeps its text and
// gains CompactedAt, and only the conversion to model messages replaces it.
package message

import (
	"crypto/rand"
	"encoding/json"
	"sync"
	"time"

	"github.com/oklog/ulid/v2"
)

// Role is who wrote a message.
type Role string

// The roles of a message.
const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
)

// Usage is the token usage of one model call (or a sum of them). Input
// includes cached input tokens; Output includes reasoning tokens, whatever the
// provider reported (the provider package normalises).
type Usage struct {
	Input       int64 `json:"input"`
	Output      int64 `json:"output"`
	Reasoning   int64 `json:"reasoning,omitempty"`
	CachedInput int64 `json:"cached_input,omitempty"`
	CacheWrite  int64 `json:"cache_write,omitempty"`
	// ReportedCostUSD is the call's cost as the provider reported it
	// (OpenRouter's usage.cost), 0 when it did not; it wins over the
	// estimate from the catalog's prices. It describes one call: Add does
	// not sum it.
	ReportedCostUSD float64 `json:"reported_cost_usd,omitempty"`
}

// Add returns the sum of two usages.
func (u Usage) Add(o Usage) Usage {
	return Usage{
		Input:       u.Input + o.Input,
		Output:      u.Output + o.Output,
		Reasoning:   u.Reasoning + o.Reasoning,
		CachedInput: u.CachedInput + o.CachedInput,
		CacheWrite:  u.CacheWrite + o.CacheWrite,
	}
}

// IsZero reports whether nothing was counted.
func (u Usage) IsZero() bool { return u == Usage{} }

// CachedShare is the share of u's input read from the provider's prompt
// cache, in [0, 1]; 0 without input.
func (u Usage) CachedShare() float64 {
	if u.Input <= 0 {
		return 0
	}
	return float64(min(u.CachedInput, u.Input)) / float64(u.Input)
}

// CachedPercent is CachedShare in whole percent, rounded down.
func (u Usage) CachedPercent() int {
	return int(100 * min(u.CachedInput, u.Input) / max(u.Input, 1))
}

// CacheFigures are the prompt-cache figures the status line, /context and
// `agent context` show: the share of the last step's input read from the
// cache, and of the session's.
type CacheFigures struct {
	LastHitRate        float64 `json:"last_hit_rate"`
	SessionCachedShare float64 `json:"session_cached_share"`
}

// CacheFiguresOf returns the cache figures of a session whose newest step
// (compactions aside) used last and whose calls used session in all; nil
// before a step with input, or while nothing was read from or written to
// the cache.
func CacheFiguresOf(last, session Usage) *CacheFigures {
	if last.Input <= 0 || session.CachedInput+session.CacheWrite == 0 {
		return nil
	}
	return &CacheFigures{LastHitRate: last.CachedShare(), SessionCachedShare: session.CachedShare()}
}

// Session is one conversation in one directory.
type Session struct {
	ID        string    `json:"id"`
	Title     string    `json:"title"`
	Model     string    `json:"model"`
	Dir       string    `json:"dir"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
	// Usage and CostUSD are cumulative over every call of the session,
	// compactions included. They are for billing, never for context size.
	Usage   Usage   `json:"usage"`
	CostUSD float64 `json:"cost_usd"`
	// ParentID is, for a subagent's session (the task tool's child), the
	// session that started it; empty for a session the user started.
	ParentID string `json:"parent_id,omitempty"`
}

// Message is one user or assistant message. An assistant message spans one
// step (one model call); its tool results are parts of the same message.
type Message struct {
	ID        string `json:"id"`
	SessionID string `json:"session_id"`
	Role      Role   `json:"role"`
	ParentID  string `json:"parent_id,omitempty"`
	// Summary marks an assistant message written by a compaction: history
	// before the newest summary is not sent to the model.
	Summary bool   `json:"summary,omitempty"`
	Model   string `json:"model,omitempty"`
	// Synthetic marks a user message the agent wrote itself (the "continue"
	// after an automatic compaction, a coalesced queue injection keeps false).
	Synthetic    bool      `json:"synthetic,omitempty"`
	FinishReason string    `json:"finish_reason,omitempty"`
	Error        string    `json:"error,omitempty"`
	Usage        Usage     `json:"usage"`
	CostUSD      float64   `json:"cost_usd,omitempty"`
	CreatedAt    time.Time `json:"created_at"`
	UpdatedAt    time.Time `json:"updated_at"`
	// FinishedAt is zero while the message is being written; recovery
	// finishes messages a crash left open.
	FinishedAt time.Time `json:"finished_at,omitzero"`
	// RewindID marks a message taken back by a rewind (/undo, /rewind,
	// `agent rewind`): it stays in the database and the export, is never
	// sent to the model nor counted, and a redo of that rewind clears it.
	RewindID string `json:"rewind_id,omitempty"`
}

// Rewound reports whether a rewind took the message back.
func (m *Message) Rewound() bool { return m.RewindID != "" }

// Finished reports whether the message was closed.
func (m *Message) Finished() bool { return !m.FinishedAt.IsZero() }

// PartType names what a part holds.
type PartType string

// The part types.
const (
	PartText       PartType = "text"
	PartReasoning  PartType = "reasoning"
	PartTool       PartType = "tool"
	PartStepStart  PartType = "step-start"
	PartStepFinish PartType = "step-finish"
	PartCompaction PartType = "compaction"
	PartPatch      PartType = "patch"
	// PartPlan is the plan a plan-mode turn ended with (Text: the plan,
	// as the user edited it); it is never sent to the model, whose answer
	// it repeats.
	PartPlan PartType = "plan"
)

// ToolStatus is the life cycle of a tool call.
type ToolStatus string

// Tool statuses: pending → running → completed | error.
const (
	ToolPending   ToolStatus = "pending"
	ToolRunning   ToolStatus = "running"
	ToolCompleted ToolStatus = "completed"
	ToolError     ToolStatus = "error"
)

// InterruptedOutput is the result given to a tool call that was cancelled or
// left dangling by a crash.
const InterruptedOutput = "[Tool execution was interrupted]"

// ClearedOutput replaces a pruned tool output in what is sent to the model.
const ClearedOutput = "[Old tool result content cleared]"

// ToolState is the state of a tool part.
type ToolState struct {
	CallID string     `json:"call_id"`
	Name   string     `json:"name"`
	Status ToolStatus `json:"status"`
	// Input is the raw JSON arguments as the model sent them.
	Input string `json:"input"`
	// Output is what the model is given (sanitised and truncated); RawOutput,
	// when set, is the original output kept for the record.
	Output    string         `json:"output,omitempty"`
	RawOutput string         `json:"raw_output,omitempty"`
	Title     string         `json:"title,omitempty"`
	Metadata  map[string]any `json:"metadata,omitempty"`
	// Progress is the last lines of a running tool's output.
	Progress string `json:"progress,omitempty"`
	// Truncated is set when Output was cut; FullOutputPath then names the
	// file holding all of it.
	Truncated      bool      `json:"truncated,omitempty"`
	FullOutputPath string    `json:"full_output_path,omitempty"`
	StartedAt      time.Time `json:"started_at,omitzero"`
	EndedAt        time.Time `json:"ended_at,omitzero"`
	// CompactedAt is set by the prune pass: the output stays in the
	// database, and the model is sent ClearedOutput instead.
	CompactedAt time.Time `json:"compacted_at,omitzero"`
	// Images are the images the tool returned (read of an image file, an
	// MCP tool's image content), stored like attachments (Kind
	// AttachImage, in the attachment store): sent to a model with vision
	// after the step's tool results, described in text otherwise, and
	// dropped from requests with the output when it is pruned.
	Images []*FileState `json:"images,omitempty"`
	// Echo is the call's vendor fields as the server sent them (a JSON
	// object, e.g. Gemini's {"extra_content":{"google":{"thought_signature":
	// …}}}), sent back with the call every time it is sent: a prune
	// clears the output, never this (provider.EchoTable).
	Echo json.RawMessage `json:"echo,omitempty"`
}

// StepState is the state of a step-finish part: the step's own usage.
type StepState struct {
	Usage        Usage   `json:"usage"`
	CostUSD      float64 `json:"cost_usd,omitempty"`
	FinishReason string  `json:"finish_reason,omitempty"`
	// Estimate is the calculator's estimate of this call's input made just
	// before it was sent, kept to measure the estimator's error.
	Estimate int64 `json:"estimate,omitempty"`
	// Calibration is the session's estimator calibration (actual/estimate)
	// after this call, so that a reopened session estimates as before.
	Calibration float64 `json:"calibration,omitempty"`
	// RequestEstimate is our own count of the request (tokens.SuspectReport
	// compares the reported input with it); UsageSuspect is set when the
	// report was implausible and the calculator ignored it.
	RequestEstimate int64 `json:"request_estimate,omitempty"`
	UsageSuspect    bool  `json:"usage_suspect,omitempty"`
	// Echo is the step's message-level vendor fields as the server sent
	// them (a JSON object: OpenRouter's reasoning_details, Gemini's
	// extra_content), sent back with the step's assistant message
	// (provider.EchoTable).
	Echo json.RawMessage `json:"echo,omitempty"`
}

// CompactionState is the state of a compaction part.
type CompactionState struct {
	Auto   bool   `json:"auto"`
	Reason string `json:"reason,omitempty"` // overflow, threshold, context_error, manual
	Focus  string `json:"focus,omitempty"`
	// TokensBefore and TokensAfter are the calculator's totals around the
	// compaction; Rejected is set when the summary did not shrink it.
	TokensBefore int64  `json:"tokens_before,omitempty"`
	TokensAfter  int64  `json:"tokens_after,omitempty"`
	Rejected     bool   `json:"rejected,omitempty"`
	SummaryID    string `json:"summary_id,omitempty"`
	// TailFrom is the id of the oldest message kept verbatim after the
	// summary; empty when no tail was kept.
	TailFrom string `json:"tail_from,omitempty"`
	// HeadUpTo is set by "summarise after here": the id of the newest
	// message kept verbatim before the summary, which covers what came
	// after it. What was sent before the compaction, up to and including
	// it (less the previous summary, which the new one carries on), is
	// sent before the summary (tokens.VisibleHistory). The next compaction
	// summarises the head like any other old message.
	HeadUpTo string `json:"head_up_to,omitempty"`
	// Outcome is what the attempt did: "summary" or "fallback" (applied),
	// "rejected" or "failed" (not applied; Rejected is set too).
	Outcome string `json:"outcome,omitempty"`
	// Model is the model that wrote (or failed to write) the summary;
	// empty for the model-free fallback.
	Model string `json:"model,omitempty"`
	// Error says why a rejected or failed attempt was not applied.
	Error string `json:"error,omitempty"`
	// Attempt numbers the attempt among those since the last request that
	// went through, from 1.
	Attempt int `json:"attempt,omitempty"`
	// DroppedTurns counts the turns a fallback stopped sending (they stay
	// in the database); Note is the line shown to the user for it.
	DroppedTurns int    `json:"dropped_turns,omitempty"`
	Note         string `json:"note,omitempty"`
	// UndoneAt is set when the compaction was undone (`agent compact
	// --undo`): its summary is kept but no longer sent, and the history
	// it replaced is sent again.
	UndoneAt time.Time `json:"undone_at,omitzero"`
	// Emergency is set on a compaction the provider forced by refusing a
	// request for its size: it runs even with compaction.auto off, and is
	// labelled as such wherever it is shown.
	Emergency bool `json:"emergency,omitempty"`
	// OriginalSummary is the summary as first written, kept when the user
	// edited it (/summary edit, `agent compact --edit`); Edits counts the
	// edits.
	OriginalSummary string `json:"original_summary,omitempty"`
	Edits           int    `json:"edits,omitempty"`
}

// PatchFile is one file a step changed.
type PatchFile struct {
	Path string `json:"path"`
	// Status is added, modified, deleted or type changed.
	Status       string `json:"status"`
	LinesAdded   int    `json:"lines_added,omitempty"`
	LinesDeleted int    `json:"lines_deleted,omitempty"`
	Binary       bool   `json:"binary,omitempty"`
	// OldMode and NewMode are git's modes ("100644", "100755", "120000"
	// for a symlink), set when they differ.
	OldMode string `json:"old_mode,omitempty"`
	NewMode string `json:"new_mode,omitempty"`
	// Unsure, when set, says why the step may not have made this change
	// (it ran a shell command that does not name the file): a rewind asks
	// before touching it.
	Unsure string `json:"unsure,omitempty"`
}

// PatchOutside is a change made in the directory while a step ran that
// the step did not make: a rewind of the step leaves it alone.
type PatchOutside struct {
	Path   string `json:"path"`
	Status string `json:"status"`
	// Session is the other session that made it, when known.
	Session string `json:"session,omitempty"`
	Why     string `json:"why"`
}

// PatchSkip is a path a step's snapshots left out, and why.
type PatchSkip struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
	Bytes  int64  `json:"bytes,omitempty"`
	// MTime is the file's modification time and Limit the size it was
	// over, when it was left out for its size; Status, in
	// PatchState.Lost, how the step changed it.
	MTime  time.Time `json:"mtime,omitzero"`
	Limit  int64     `json:"limit,omitempty"`
	Status string    `json:"status,omitempty"`
}

// PatchState is the state of a patch part: what the step's tools changed
// in the working directory, whoever changed it (write, edit or a shell
// command), between the snapshots taken before and after them.
type PatchState struct {
	Before string      `json:"before"`
	After  string      `json:"after"`
	Files  []PatchFile `json:"files"`
	// Skipped are the paths the snapshots left out (too large,
	// unreadable, nested repositories): their changes are not undone.
	Skipped []PatchSkip `json:"skipped,omitempty"`
	// Outside are the changes made while the step ran that are not its
	// own (another session's, the user's): not in Files, never rewound.
	Outside []PatchOutside `json:"outside,omitempty"`
	// Lost are the changes of the step no undo can take back: files the
	// snapshots do not hold (too large, ignored and over the limit)
	// that it deleted, changed or created.
	Lost []PatchSkip `json:"lost,omitempty"`
}

// Lines returns the patch's added and deleted line counts.
func (p *PatchState) Lines() (added, deleted int) {
	for _, f := range p.Files {
		added += f.LinesAdded
		deleted += f.LinesDeleted
	}
	return added, deleted
}

// Outcomes of a compaction attempt (CompactionState.Outcome).
const (
	CompactionSummary  = "summary"
	CompactionFallback = "fallback"
	CompactionRejected = "rejected"
	CompactionFailed   = "failed"
)

// Part is one piece of a message. Exactly one of the state fields is used,
// according to Type: Text for text and reasoning, Tool, Step (step-finish),
// Compaction or Patch.
type Part struct {
	ID        string    `json:"id"`
	SessionID string    `json:"session_id"`
	MessageID string    `json:"message_id"`
	Type      PartType  `json:"type"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`

	Text       string           `json:"text,omitempty"`
	Tool       *ToolState       `json:"tool,omitempty"`
	Step       *StepState       `json:"step,omitempty"`
	Compaction *CompactionState `json:"compaction,omitempty"`
	Patch      *PatchState      `json:"patch,omitempty"`
	File       *FileState       `json:"file,omitempty"`
}

// QueuedMessage is user input typed while the loop was busy, persisted until
// it is injected so a crash loses nothing.
type QueuedMessage struct {
	ID        string    `json:"id"`
	SessionID string    `json:"session_id"`
	Text      string    `json:"text"`
	Position  int       `json:"position"`
	CreatedAt time.Time `json:"created_at"`
	// Kind says when it is delivered: KindSteer (the zero value reads as
	// steer) between the steps of the running turn, KindQueue after it.
	Kind QueueKind `json:"kind,omitempty"`
	// Images are attached to it (kind AttachImage, in the attachment
	// store), and to the user message it is delivered in.
	Images []*FileState `json:"images,omitempty"`
}

var (
	idMu      sync.Mutex
	idEntropy = ulid.Monotonic(rand.Reader, 0)
)

// NewID returns a new time-ordered, lexically sortable id (a ULID). Ids made
// by one process are strictly increasing.
func NewID() string {
	idMu.Lock()
	defer idMu.Unlock()
	return ulid.MustNew(ulid.Timestamp(time.Now()), idEntropy).String()
}

// Entry is one message with its parts in order: the unit in which history
// is loaded, converted for the model, pruned and compacted.
type Entry struct {
	Message Message `json:"message"`
	Parts   []Part  `json:"parts"`
}

// Rewind kinds and modes.
const (
	RewindKindRewind = "rewind"
	RewindKindRedo   = "redo"

	RewindBoth         = "both"         // code and conversation
	RewindCode         = "code"         // the files only
	RewindConversation = "conversation" // the messages only
)

// Rewind records one restore of a session: a rewind (/undo, /rewind,
// `agent rewind`) that took messages back and/or put files back, or the
// redo of one. Target, Before and After are snapshot ids (empty when no
// file was restored).
type Rewind struct {
	ID        string `json:"id"`
	SessionID string `json:"session_id"`
	Kind      string `json:"kind"`
	Mode      string `json:"mode"`
	// MessageID is the first message a rewind took back (and everything
	// after it); Redoes is the rewind a redo reapplies.
	MessageID string `json:"message_id,omitempty"`
	Redoes    string `json:"redoes,omitempty"`
	// Target is the snapshot restored; Before the tree just before (a redo
	// restores it), After the tree just after.
	Target    string    `json:"target,omitempty"`
	Before    string    `json:"before,omitempty"`
	After     string    `json:"after,omitempty"`
	RedoneAt  time.Time `json:"redone_at,omitzero"`
	CreatedAt time.Time `json:"created_at"`
}

// Pin is a fact the user pinned to a session: it is sent verbatim after
// every summary (before the first message when there is none) and is never
// summarised away. Removing one stamps RemovedAt; it stays in the database.
type Pin struct {
	ID        string `json:"id"`
	SessionID string `json:"session_id"`
	Text      string `json:"text"`
	// MessageID is the message the pin was taken from, if any.
	MessageID string    `json:"message_id,omitempty"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
	RemovedAt time.Time `json:"removed_at,omitzero"`
}
