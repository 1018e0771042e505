// Package loop drives a session: one loop goroutine per session takes a user
// message, streams a step (one model call), runs the tools it asked for, and
// goes on step by step until the model stops calling tools, the user cancels,
// or the step limit is reached.
//
// At the start of each turn the dynamic system message (directory, date,
// git status, AGENTS.md) is gathered again, unless it was gathered ahead
// of the turn — beside Open and the first message (Options.Environment) or
// while the user typed (PrefetchEnvironment) — less than 20 s before; the
// stable one never changes.
// Between steps, in this order, the loop injects queued user messages
// (coalesced into one), builds the request and repairs any tool call
// without its one result (what each history entry is sent as is kept from
// step to step: reqcache.go), decides compaction with the token
// calculator (its total, or our own count of the request when the
// provider's usage says less, against a compaction point a provider's
// refusal may have lowered; an automatic compaction prunes first and
// summarises only if the request still does not fit, prunedenough.go;
// after a compaction the request is built again), streams the next step and persists its usage, runs the tools, and after
// the turn prunes old tool outputs. A step's tools that can change files
// run between two snapshots of the directory, and the step's patch is
// stored with it (checkpoint.go). A context-length error compacts and
// streams again. Compaction attempts are bounded (compact.Breaker: at most
// three until a request goes through, the last one model-free), and the
// synthetic continue follows a compaction only in the middle of a task.
// The user's hooks fire at fixed points of this order: at Open, before a
// user message is stored, around each tool call and each compaction, and
// when a turn ends (hooks.go).
// Everything is persisted as it happens, so a cancel or a crash loses
// nothing; Open repairs what a crash left.
//
// A Runner owns its session's lease in the database: one process drives a
// session at a time.
//
// # Where things live
//
// The turn order, and the file each part of it is in (Runner is the
// orchestrator; the collaborators named have their own types):
//
//	Open, repair after a crash          runner.go (Open), recover.go
//	user message in: Send, queue, steer runner.go (Send), steer.go (type inbox: queue
//	                                    delivery, mentions), usermessage.go, coalesce.go,
//	                                    mention.go, images.go, shell.go
//	the turn and its steps              runner.go (run, turn), hooks.go (Stop hooks)
//	system prompt, instructions, pins   prompt.go, instructions.go, pins.go
//	a step: its request and cache,      stepper.go (type stepper: explicit inputs,
//	  streaming, retries, usage,        stepDeps; wired by stepwire.go), step.go,
//	  the budget, its tool runs         stepopen.go, stepfit.go, convert.go, reqcache.go,
//	                                    echo.go (vendor fields sent back), reqwarm.go,
//	                                    cachemarks.go, retry.go, usage.go,
//	                                    usagesanity.go, budget.go, child.go
//	tools offered, tool-less models     tooltable.go, toolless.go (stepper)
//	tool runs, doom-loop guard          toolrun.go, doom.go (stepper)
//	checkpoints and rewind: a step's    checkpoint.go (type checkpointer: explicit
//	  snapshots, undo, redo, rewind,    store, session, history and busy inputs;
//	  diff, fork                        Runner keeps the exported delegates),
//	                                    rewind.go, checkpoint_budget.go,
//	                                    checkpoint_progress.go, attribution.go,
//	                                    agentstate.go, lost.go, snapshot.go
//	notes (checkpoints off, skipped     notes.go (Runner.note, Notes)
//	  instruction files)
//	hook points                         hooks.go (type hookPoints: SessionStart context,
//	                                    a hook's stop, Stop hook continuations)
//	deciding compaction, its forecast,  compactor.go (type compactor, field comp: the
//	  the failed point, the breaker     failed point, the breaker, the forecast's
//	                                    state; its inputs in compactorDeps),
//	                                    compaction.go, prunedenough.go, forecastseed.go
//	pricing                             pricing.go, reasoningrow.go
//	                                    (pure: fixedTokensOf, restoreCostOf, previewOf)
//	compaction's writes: marker, prune, compactor.go, compaction.go (compactor)
//	  apply, undo, summary edit
//	summary requests and their retries  summariser.go (type summariser), summaryretry.go
//	undo, summary edit, preview (API)   uncompact.go, summaryedit.go, summaryfile.go,
//	                                    preview.go (Runner's methods delegate to comp)
//	the session's title                 title.go (type titler), unreachable.go
//	                                    (small_model down)
//	startup timings                     startuptrace.go (type startupTrace)
//	after the turn: prune, idle         compaction.go (compactor.prune), runner.go (setIdle)
package loop
