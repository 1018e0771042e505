// Package loop drives a session: one loop goroutine per session takes a user
// message, streams a step (one model call), runs the tools it asked for, and
// goes on step by step until the model stops calling tools, the user cancels,
// or the step limit is reached.
//
// At the start of each turn the environment (directory, date, git status,
// AGENTS.md) is gathered again, unless it was gathered ahead of the turn —
// beside Open and the first message (Options.Environment) or while the
// user typed (PrefetchEnvironment) — less than 20 s before. The dynamic
// system message keeps the git status of the session's start and is made
// again only when the date or an instruction file changed; a git status
// that changed since the model was last told it becomes a part of the
// turn's user message (envcontext.go). The stable one never changes.
// Between steps, in this order, the loop injects queued user messages
// (coalesced into one), builds the request and repairs any tool call
// without its one result (what each history entry is sent as is kept from
// step to step: reqcache.go), decides compaction with the token
// calculator (its total, or our own count of the request when the
// provider's usage says less, against a compaction point a provider's
// refusal may have lowered; an automatic compaction prunes first and
// summarises only if the request still does not fit, prunedenough.go;
// after a compaction the request is built again), compares the request
// with the last one sent (a change to its cached prefix is a recorded
// cache boundary, where the tools tool_search found join:
// cacheboundary.go), reserves its cost within the budget, streams the
// next step and persists its usage, runs the tools, and after
// the turn prunes old tool outputs. A step's tools that can change files
// run between two snapshots of the directory, and the step's patch is
// stored with it (checkpoint.go). A context-length error compacts and
// streams again. Compaction attempts are bounded (compact.Breaker: at most
// three until a request goes through, the last one model-free), and the
// synthetic continue follows a compaction only in the middle of a task.
// The user's hooks fire at fixed points of this order: at Open, before a
// user message is stored, around each tool call and each compaction, and
// when a turn ends (hooks.go). A turn that ends in plan mode stores its
// final answer as the session's plan (planmode.go). A turn that ends on
// its own with todo items not done gets one reminder step
// (todoreminder.go).
// Everything is persisted as it happens, so a cancel or a crash loses
// nothing; Open repairs what a crash left. The one exception is the user
// message that starts a turn: it is in the history at once and written
// once its request's body is sent (usercommit.go), before anything of
// the turn is written, so a kill in that window (milliseconds) loses it.
//
// A Runner owns its session's lease in the database: one process drives a
// session at a time.
//
// # Where things live
//
// The turn order, and the file each part of it is in (Runner is the
// orchestrator, runner.go: Open, run, turn; the collaborators named have
// their own types, wired with explicit inputs in wiring.go, stepwire.go,
// runnerCompactor and runnerCheckpointDeps):
//
//	Open, repair after a crash          runner.go (Open), wiring.go (wire), recover.go,
//	                                    openrepair.go (lease and repair in one write)
//	what Open reads: the window sent    openwindow.go (openHistory; WholeHistory for
//	  (not the whole history)           the readers that need more)
//	how Open holds it, densely          historypack.go (packHistory)
//	options and results                 options.go (Options, TurnResult, finish reasons,
//	                                    DoomAsker)
//	session state: row, history,        session.go (type sessionState: one lock, mu;
//	  system prompt, pins, notes,       the row's writes under sessWrite),
//	  lease, the user message's write   usermessage.go (storeUserMessage), usercommit.go
//	                                    (written once its request is sent), pins.go, notes.go
//	turn control: busy, cancel, idle,   turn.go (type turnControl: claim, claimPeriod,
//	  the last result, resuming the     claimOr, release, setIdle, settle; guarded by
//	  queue when a period ends          sessionState.mu)
//	events to the observer and broker   events.go (type emitter: emit, error, queue, note)
//	user message in: Send, queue, steer runner.go (Send), steer.go (type inbox: queue
//	                                    delivery, mentions), queue.go (the queue's API),
//	                                    usermessage.go, coalesce.go, mention.go, images.go,
//	                                    shell.go
//	the turn and its steps              runner.go (run, turn), hooks.go (Stop hooks)
//	system prompt, instructions         prompt.go (refreshPrompt, openPrompt, systemOf),
//	                                    instructions.go
//	skills: their list, the skill tool  skills.go (type Skills: Options.Skills)
//	memory: the prompt's section        memoryprompt.go (withMemory, made once at Open;
//	                                    the tools are internal/memory's, in sessionTools)
//	a headless start's git status       gitbudget.go (at most 20 ms of waiting)
//	the git status of a later turn      envcontext.go (statusNote: a part of the turn's
//	                                    user message; the session's start status stored)
//	the model and its calculator        model.go (SetModel, Reading, restoreCalculator)
//	a step: its request and cache,      stepper.go (type stepper: explicit inputs,
//	  streaming, retries, usage,        stepDeps; wired by stepwire.go), step.go,
//	  the budget, its tool runs         stepopen.go, stepfit.go, convert.go, reqcache.go,
//	                                    echo.go (vendor fields sent back), reqwarm.go,
//	                                    reqresume.go (a walk from the newest entries;
//	                                    historyedits.go: the history's edits counted),
//	                                    cachemarks.go, retry.go, usage.go,
//	                                    usagesanity.go, budget.go, child.go
//	the request's reasoning effort      effort.go (type Effort: the user's choice, the
//	                                    config's, the catalog's rule; the stepper's)
//	cache boundaries: the request's     cacheboundary.go (stepper: boundaryWatch; found
//	  prefix kept between them, each     tools join at one, call_tool before),
//	                                    toolsprint.go (the tools' print, hashed when judged)
//	  recorded with its reason          printmemo.go (the warming's hashes, for the
//	                                    first print after a resume), tallymemo.go
//	tools offered, tool-less models     tooltable.go, toolless.go (stepper)
//	images from tools: stored, sent,    toolimages.go (stepper: a model that
//	  described; vision refused         refused images)
//	tool runs, doom-loop guard          toolrun.go, doom.go (stepper)
//	plan mode: the tools offered, the   planmode.go (Options.Mode, internal/plan
//	  refusal, the plan part            decides; LatestPlan, SavePlanEdit)
//	checkpoints and rewind: a step's    checkpoint.go (type checkpointer: explicit
//	  snapshots, undo, redo, rewind,    store, session, history and busy inputs;
//	  diff, fork                        Runner keeps the exported delegates),
//	                                    rewind.go, checkpoint_budget.go,
//	                                    checkpoint_progress.go, attribution.go,
//	                                    agentstate.go, lost.go
//	the model's todo list: sent after   todo.go (todoSent, todoNow), todomemo.go, todoreminder.go
//	  the pins once summarised away,    (type todoReminder: wraps the hook points'
//	  the reminder step                 turn), promptlines.go (the prompt's named lines)
//	hook points                         hooks.go (type hookPoints: SessionStart context,
//	                                    a hook's stop, Stop hook continuations)
//	deciding compaction, its forecast,  compactor.go (type compactor, field comp: the
//	  the failed point, the breaker     failed point, the breaker, the forecast's
//	                                    state; its inputs in compactorDeps),
//	                                    compaction.go, prunedenough.go, forecastseed.go
//	pricing                             pricing.go (type pricing, modelPricing: pure),
//	                                    reasoningrow.go
//	pricing a stored session (the       reading.go (StoredReading, ReadContext,
//	  read-only commands)               ReadPreview: no Runner, no lease)
//	compaction's writes: marker, prune, compactor.go, compaction.go (compactor)
//	  apply, undo, summary edit
//	summary requests and their retries  summariser.go (type summariser), summaryretry.go
//	undo, summary edit, preview (API)   uncompact.go, summaryedit.go, summaryfile.go,
//	                                    preview.go (Runner's methods delegate to comp)
//	the session's title                 title.go (type titler), unreachable.go
//	                                    (small_model down)
//	startup timings                     startuptrace.go (type startupTrace)
//	after the turn: prune, idle,        compaction.go (compactor.prune), turn.go (settle),
//	  the records after it              afterturn.go (recordAfterTurn: one commit)
package loop
