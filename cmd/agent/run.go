package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ctxloop/agent/internal/attachments"
	"github.com/ctxloop/agent/internal/loop"
	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/startup"
	"github.com/ctxloop/agent/internal/tools"
)

// maxStdinPrompt bounds a prompt read from standard input.
const maxStdinPrompt = 10 << 20

type runFlags struct {
	format   string
	yes      bool
	maxSteps int
	// maxCost is --max-cost: the session's spending cap in USD, over
	// the config's budget; 0 keeps the budget.
	maxCost float64
	session string
	cont    bool
	// stdinSteer reads standard input's lines as steering (steer.go).
	stdinSteer bool
	// images are the --image files, attached to the prompt.
	images []string
	// noWaitMCP is --no-wait-mcp: the first step does not wait for the
	// MCP servers still starting (by default it does, so that it offers
	// their tools); waitMCP is the old --wait-mcp, now the default.
	noWaitMCP, waitMCP bool
	// effort is --effort: the reasoning effort (effort.go).
	effort string
	// plan is --plan, execute --execute (runplan.go).
	plan, execute bool
	// timeout is --timeout: the run's time, told to the model (loop.RunLimits).
	timeout time.Duration
	// sandbox is --sandbox: the OS sandbox's mode over the config's (sandbox.go).
	sandbox string
}

// imageFile is an --image file, read and checked before anything else.
type imageFile struct {
	path string
	data []byte
}

func newRunCmd(g *globalFlags) *cobra.Command {
	f := &runFlags{}
	cmd := &cobra.Command{
		Use:   "run [flags] PROMPT...",
		Short: "Run one prompt headless and stream the answer",
		Long: `run sends one prompt (the arguments, or standard input when there are none)
and runs the agent until it answers. A prompt that starts with /name is a
custom slash command (see agent commands): the command's text is sent, its
$ARGUMENTS and $1…$9 filled from the words after the name; a name no
command has is bad usage (start the prompt with a space to send it as text). On a terminal the answer streams to
stdout; to a pipe or a file only the final answer is printed, at the end.
With --format json it prints one JSON object per line for each event
instead; done.text is the final answer.

Exit status: 0 on success (an explicit --max-steps or --timeout reached
included: the model is told when a quarter is left, and the last step
answers without tools; finish_reason "max_steps" or "timeout"), 1 on
failure (including a refused doom loop, the default limit of 200 steps and
--max-cost or the config's budget reached: finish_reason "budget"),
2 on bad usage (an --image refused, too large, not an image, or for a model
without vision, --max-cost for a model without a price, and an --effort the
model does not take, included: no request is made), 130 when interrupted.`,
		Example: `  agent run "summarise README.md"
  git diff | agent run --yes "review this diff"
  agent run --format json --max-steps 5 "list the TODOs" | jq -r 'select(.type=="done").text'
  agent run -c "and now add a test for it"
  agent run --image screenshot.png "why is this button misaligned?"
  agent run /review main.go "error handling"`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runHeadless(cmd.Context(), g, f, args)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.format, "format", "text", "output format: text or json")
	fl.BoolVar(&f.yes, "yes", false, "approve tool permissions that would ask")
	fl.IntVar(&f.maxSteps, "max-steps", 0, "stop after N steps, successfully; the model is told when a quarter is left, and the Nth step answers without tools (0: the default guard of 200 steps, which fails)")
	fl.DurationVar(&f.timeout, "timeout", 0, "end the run after DURATION (e.g. 10m), successfully; the model is told when a quarter is left, and the step that starts after the time is up answers without tools")
	fl.BoolVar(&f.noWaitMCP, "no-wait-mcp", false, "do not wait for the MCP servers still starting: their tools join from the step after they connect (by default the first request waits for each, in parallel, within its startup timeout)")
	fl.BoolVar(&f.waitMCP, "wait-mcp", false, "accepted for compatibility: waiting for the MCP servers is the default")
	fl.Float64Var(&f.maxCost, "max-cost", 0, "stop before a model request, with its subagents' and its output at max_tokens reserved, could take the session's cost past USD (over the config's budget); exit 1")
	fl.StringVar(&f.session, "session", "", "continue this session")
	fl.BoolVarP(&f.cont, "continue", "c", false, "continue the latest session of this directory")
	fl.StringArrayVar(&f.images, "image", nil, "attach an image file (PNG, JPEG, GIF or WebP, at most 20 MB) to the prompt; repeatable; the model needs vision")
	fl.StringVar(&f.effort, "effort", "", "reasoning effort: minimal, low, medium or high (or none, xhigh, max where the model takes them); over the config's models.NAME.effort; a level the model does not take exits 2")
	fl.BoolVar(&f.plan, "plan", false, "plan mode: read-only tools only (bash only for read-only command lines); the final answer is stored as the session's plan")
	fl.BoolVar(&f.execute, "execute", false, "with -c or --session: leave plan mode and run the session's latest plan (words given are added after it)")
	fl.StringVar(&f.sandbox, "sandbox", "", "run commands in the OS sandbox: off, read-only or workspace-write (over the config's sandbox); exits 2 when this machine has none")
	fl.BoolVar(&f.stdinSteer, "stdin-steer", false, "read further lines of standard input as steering for the running turn (the prompt then comes from the arguments)")
	return cmd
}

func readPrompt(args []string, stdin io.Reader) (string, error) {
	if len(args) > 0 {
		return strings.Join(args, " "), nil
	}
	if fi, err := os.Stdin.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 && stdin == os.Stdin {
		return "", usageError("no prompt: give it as arguments or on standard input")
	}
	data, err := io.ReadAll(io.LimitReader(stdin, maxStdinPrompt+1))
	if err != nil {
		return "", fmt.Errorf("read prompt from stdin: %w", err)
	}
	if len(data) > maxStdinPrompt {
		return "", usageError("prompt on stdin is larger than %d MB", maxStdinPrompt>>20)
	}
	return string(data), nil
}

func runHeadless(ctx context.Context, g *globalFlags, f *runFlags, args []string) error {
	startup.Mark("command")
	if f.format != "text" && f.format != "json" {
		return usageError("--format %q: want text or json", f.format)
	}
	if f.maxSteps < 0 {
		return usageError("--max-steps must be positive")
	}
	if f.maxCost < 0 {
		return usageError("--max-cost must be positive")
	}
	if f.timeout < 0 {
		return usageError("--timeout must be positive")
	}
	if f.session != "" && f.cont {
		return usageError("--session and --continue are mutually exclusive")
	}
	if err := effortWord(f.effort); err != nil {
		return err
	}
	if f.stdinSteer && len(args) == 0 {
		return usageError("--stdin-steer reads standard input as steering: give the prompt as arguments")
	}
	if err := checkPlanFlags(f); err != nil {
		return err
	}
	var prompt string
	if !f.execute || len(args) > 0 { // --execute's message is the plan
		var err error
		if prompt, err = readPrompt(args, os.Stdin); err != nil {
			return err
		}
	}
	if strings.HasPrefix(prompt, "/") { // a custom command (commands.go)
		a, err := loadApp(g)
		if err != nil {
			return err
		}
		if prompt, err = expandCommand(a, prompt, args); err != nil {
			return err
		}
	}
	if strings.TrimSpace(prompt) == "" && !f.execute {
		return usageError("empty prompt")
	}
	images, err := readImages(f.images)
	if err != nil {
		return err
	}
	out := newEventWriter(os.Stdout, os.Stderr, f.format)
	out.tty, out.errTTY = toTerminal(os.Stdout), toTerminal(os.Stderr)
	err = runPrompt(ctx, g, f, prompt, images, out)
	var ee *exitError
	if err != nil && !(errors.As(err, &ee) && ee.code == exitUsage) {
		// A run that could not start still ends its event stream.
		out.fail(err)
	}
	return err
}

// readImages reads and checks the --image files; a refused one is bad
// usage, with the reason.
func readImages(paths []string) ([]imageFile, error) {
	var images []imageFile
	for _, p := range paths {
		data, _, err := attachments.ReadImage(p)
		if err != nil {
			return nil, usageError("--image: %v", err)
		}
		images = append(images, imageFile{path: p, data: data})
	}
	return images, nil
}

// noVision is the refusal of images for a model without vision.
func noVision(model string) error {
	return usageError("--image: model %s %v; choose a model that does, or set models.%s.vision in your user config if it does", model, loop.ErrNoVision, model)
}

// titleGrace is how long a headless run waits, after its turn, for the
// small model's session title still on its way.
const titleGrace = 2 * time.Second

// runPrompt runs one prompt to the end of its turn, writing events to out.
func runPrompt(ctx context.Context, g *globalFlags, f *runFlags, prompt string, images []imageFile, out *eventWriter) error {
	gc := relaxStartupGC() // startheap.go: until the first tool call
	defer gc.restore()
	a, err := loadDriving(g)
	if err != nil {
		return err
	}
	if w, err := a.setupSandbox(f.sandbox); err != nil {
		return err // --sandbox asked for one this machine cannot give: exit 2
	} else if w != "" {
		fmt.Fprintln(os.Stderr, "agent: warning:", w)
	}
	if n := sandboxAnnouncement(a.cfg.Sandbox, a.cfg.DataDir, f.sandbox); n != "" {
		fmt.Fprintln(os.Stderr, "agent: note:", n)
	}
	startup.Mark("config")
	ctx, stop := interruptible(ctx)
	defer stop()
	// git and the AGENTS.md files are read while the database opens and
	// the session and the prompt are written; the first turn waits for them.
	env := loop.GatherEnvironment(ctx, a.dir)
	a.startMCP(ctx) // servers connect in the background from here
	defer a.closeMCP()
	st, err := a.openDriving(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	startup.Mark("open db")

	sessionID, err := a.resolveSession(ctx, st, f.session, f.cont, false)
	if err != nil {
		return err
	}
	if sessionID == "" {
		// A new session on a custom server needs a model the server has.
		if err := a.chooseModel(ctx); err != nil {
			return err
		}
		if info, _ := a.cfg.ModelInfo(a.cfg.Model); len(images) > 0 && !info.SendsImages() {
			return noVision(a.cfg.Model) // before a session is made
		}
	}
	opt := a.loopOptions(st, tools.NewPermissions(permModes(a.cfg.Permissions), nil, f.yes).WithDomainMemory(domainMemory(a.cfg)))
	opt.Observer, opt.MaxSteps = gc.observe(out.observe), f.maxSteps
	opt.StartupTrace, opt.Environment = startup.Hook(), env
	// A new session's row, lease and first message: one write.
	opt.RowOnFirstMessage = sessionID == ""
	if f.maxCost > 0 {
		opt.MaxCostUSD = f.maxCost
	}
	opt.BudgetHint = "raise it with --max-cost USD (or budget in the config)"
	opt.Effort = effortChoice(f.effort)
	if f.plan || f.execute {
		opt.Mode.Set(f.plan)
	}
	opt.TodoReminder = a.cfg.Tools.TodoReminderOn(true)
	if f.format == "text" { // skills.go
		if n := skillsWaiting(opt.Skills.Catalog(), "agent skills list, approve with agent skills approve"); n != "" {
			fmt.Fprintln(os.Stderr, "agent: note:", n)
		}
	}
	opt.NonInteractive = true // nobody answers: a question is answered by the run's policy
	if f.maxSteps > 0 || f.timeout > 0 {
		opt.Limits = &loop.RunLimits{Steps: f.maxSteps, Timeout: f.timeout, Start: time.Now()}
	}
	// The run's own session is read through the writer, so that its
	// open opens no reading connection; the windows read after it (its
	// subagents', several at once) through the readers
	// (storage/openreads.go).
	st.Window().ThroughWriter(true)
	r, err := loop.Open(context.WithoutCancel(ctx), opt, sessionID)
	st.Window().ThroughWriter(false)
	if err != nil {
		return err
	}
	defer r.Close()
	if err := unpricedCap(a.cfg, r.Model(), f.maxCost); err != nil {
		return err // before any request
	}
	if err := effortTaken(f.effort, r.Model()); err != nil {
		return err // before any request (opt.Effort is not read before one)
	}
	if r.Stored() {
		out.setSession(r.Session().ID)
	}
	if f.execute {
		if prompt, err = executePrompt(r, prompt); err != nil {
			return err
		}
	}

	if len(images) > 0 && !r.Vision() {
		return noVision(r.Session().Model)
	}
	var parts []*message.FileState
	for _, im := range images {
		st := attachments.ForDataDir(a.cfg.DataDir)
		part, err := st.Add(im.path, im.data)
		if err != nil {
			return err
		}
		parts = append(parts, part)
	}
	// The MCP servers, connecting in parallel since start-up began, are
	// waited for (each within its startup timeout) so that the first
	// request offers their tools; --no-wait-mcp lets them join from the
	// step after they connect. Failures are reported at the end.
	if !f.noWaitMCP && a.mcp != nil {
		_ = a.mcp.Wait(ctx)
	}
	defer a.reportMCP()
	proposed := watchProposed(ctx, st, a.dir) // memory.go
	if err := r.SendImages(ctx, prompt, parts); err != nil {
		return err
	}
	out.setSession(r.Session().ID)
	if f.stdinSteer {
		go steerFromStdin(ctx, r, os.Stdin, out)
	}
	var res loop.TurnResult
	select {
	case <-r.Done():
		res = r.Wait(context.Background())
		startup.Mark("answer")
	case <-ctx.Done():
		_, _ = r.Cancel(context.Background())
		res = r.Wait(context.Background())
		res.FinishReason = loop.FinishCancelled
	}
	stopJobs(opt.Jobs, out) // the run's end is its background processes' end
	if n := proposed.note(context.WithoutCancel(ctx)); n != "" {
		out.notice(n)
	}
	var runErr error
	switch {
	case res.FinishReason == loop.FinishCancelled:
		out.done(storedSession(r), res, r.Reading().Total, nil)
		if !r.Stored() {
			return &exitError{code: exitInterrupted, err: errors.New("interrupted before anything was saved")}
		}
		return &exitError{code: exitInterrupted, err: fmt.Errorf("interrupted; session %s saved", r.Session().ID)}
	case res.Err != nil:
		runErr = res.Err
	case res.FinishReason == loop.FinishDoomLoop:
		runErr = errors.New("stopped: a doom loop")
	case res.FinishReason == loop.FinishEmpty:
		runErr = errors.New("the model returned an empty answer")
	case res.FinishReason == loop.FinishMaxSteps && f.maxSteps == 0:
		// The default cap is a guard against a runaway model, not an end
		// the user asked for.
		runErr = fmt.Errorf("stopped after the default limit of %d steps; pass --max-steps N to allow more", loop.DefaultMaxSteps)
	case res.FinishReason == loop.FinishMaxSteps:
		out.notice(fmt.Sprintf("stopped after %d steps (--max-steps %d)", res.Steps, f.maxSteps))
	case res.FinishReason == loop.FinishTimeout:
		out.notice(fmt.Sprintf("stopped after %d steps at --timeout %s", res.Steps, f.timeout))
	}
	if runErr == nil {
		// Best effort: give the small model's title a moment to land.
		select {
		case <-r.TitleDone():
		case <-time.After(titleGrace):
		case <-ctx.Done():
		}
	}
	out.done(storedSession(r), res, r.Reading().Total, runErr)
	if runErr != nil {
		if out.printed() {
			return &exitError{code: exitFailure}
		}
		return &exitError{code: exitFailure, err: runErr}
	}
	return nil
}

// storedSession is the session the done event names: none when its row
// was never written (the first message never stored).
func storedSession(r *loop.Runner) message.Session {
	s := r.Session()
	if !r.Stored() {
		s.ID = ""
	}
	return s
}
