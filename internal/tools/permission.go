package tools

import (
	"context"
	"fmt"
	"strings"
	"sync"
)

// Mode is what the configuration says about a tool: run it, ask first, or
// never run it.
type Mode string

// The permission modes of a tool.
const (
	ModeAllow Mode = "allow"
	ModeAsk   Mode = "ask"
	ModeDeny  Mode = "deny"
)

// DefaultModes returns the modes used for tools the configuration does not
// mention: bash, edit and write ask; read, grep, glob and ls are allowed.
func DefaultModes() map[string]Mode {
	return map[string]Mode{
		"bash": ModeAsk, "edit": ModeAsk, "write": ModeAsk,
		"read": ModeAllow, "grep": ModeAllow, "glob": ModeAllow, "ls": ModeAllow,
		// They reach only the processes an approved bash started.
		"bash_output": ModeAllow, "bash_kill": ModeAllow,
	}
}

// Reply is the user's answer to a permission request.
type Reply int

// The answers to a permission request. The zero Reply denies.
const (
	Deny         Reply = iota // do not run this call
	AllowOnce                 // run this call
	AllowSession              // run this call and, for the rest of the session, calls of this tool (for bash: these command prefixes)
	// AllowAlways runs this call and, from now on, every call of the
	// tool to this domain (DomainGated requests only: Request.Domain;
	// remembered through DomainMemory, else for the session).
	AllowAlways
)

// Request describes a call that needs the user's approval.
type Request struct {
	Tool string
	// CallID is the model's id of the call asked about (Call.ID), so that
	// a front end can tie the question to the call it shows.
	CallID  string
	Title   string // the call's title, e.g. "bash: go test ./..."
	Command string // bash: the command
	// Prefixes are, for bash, the command prefixes ("go test", "git status")
	// an AllowSession reply grants; empty when the command is too complex to
	// grant by prefix (then AllowSession grants this exact command).
	Prefixes []string
	Paths    []string // the paths the call touches, absolute with symlinks resolved
	Commands []string // bash: every simple command in the line as written (inside loops, conditions, substitutions...), for the dialog
	Outside  bool     // some path is outside the session's directory
	// GitDir: write or edit of a path in a .git directory (git's
	// configuration and hooks make git run commands). Always asked, never
	// granted for the session; AllowSession counts as AllowOnce.
	GitDir bool
	// RunsCode: write or edit of a file that runs as code on the user's
	// next action (codepaths.go: a .git directory, git hooks, .envrc,
	// editor tasks, the agent's own project config and hooks, a file a
	// configured hook runs). Always asked, even when the tool is allowed,
	// and never granted for the session: AllowSession counts as AllowOnce.
	// Reason says what runs it. GitDir implies RunsCode.
	RunsCode bool
	Reason   string // why approval is needed, for the dialog
	From     string // who asks, when not the session's model (Env.AskFrom)
	// Diff is, for edit and write, the unified diff the call would make,
	// computed before consent without writing anything; empty when the
	// call would fail or the file is too large (see PreviewDiff).
	Diff string
	// OutsideSandbox: a bash command the sandbox denied, to run outside
	// it once (sandboxed.go); Reason says what was denied. Never granted
	// for the session: AllowSession counts as AllowOnce.
	OutsideSandbox bool
	// Domain is, for a tool that asks per domain (DomainGated:
	// web_fetch), the host asked about: AllowSession grants that host.
	Domain string
}

// Answer is a Reply with what the user added to it.
type Answer struct {
	Reply Reply
	// Reason is the user's one line on a denial, given to the model as
	// the tool's result.
	Reason string
	// StopTurn, on a denial, ends the turn after this step: the calls
	// after this one are not run and the model is not called again.
	StopTurn bool
}

// AnswerAsker is an Asker that can carry a denial's reason and "deny and
// stop the turn"; Permissions prefers it when the asker implements it.
type AnswerAsker interface {
	AskAnswer(ctx context.Context, req Request) (Answer, error)
}

// Asker asks the user about a call; the TUI implements it. Ask blocks until
// the user answers or ctx is done (then it returns ctx's error). Permissions
// never has two questions open at once.
type Asker interface {
	Ask(ctx context.Context, req Request) (Reply, error)
}

// Permissions decides whether a call may run. It is safe for concurrent
// use; one Permissions serves one session (its "allow for this session"
// grants live in memory).
type Permissions struct {
	modes      map[string]Mode
	configured map[string]Mode // what NewPermissions was given, without the defaults
	asker      Asker
	yes        bool

	mu     sync.Mutex
	grants map[string]bool

	askMu sync.Mutex // one question at a time

	domains DomainMemory // the domains always allowed (domains.go); nil: none

	stopTurn bool // a denial asked to end the turn; see TakeStopTurn
}

// NewPermissions returns the permissions of a session. modes override
// DefaultModes per tool (an unknown mode value counts as ask). asker is nil
// when headless; yes (--yes) approves every call that would ask. A denied
// tool stays denied whatever yes says.
func NewPermissions(modes map[string]Mode, asker Asker, yes bool) *Permissions {
	m := DefaultModes()
	for tool, mode := range modes {
		m[tool] = mode
	}
	return &Permissions{modes: m, configured: modes, asker: asker, yes: yes, grants: map[string]bool{}}
}

// Mode returns the configured mode of a tool (ask for unknown tools and
// values).
func (p *Permissions) Mode(tool string) Mode {
	switch m := p.modes[tool]; m {
	case ModeAllow, ModeDeny:
		return m
	}
	return ModeAsk
}

// Check decides whether call may run. Read-only tools inside env.Dir are
// allowed by default; any path outside env.Dir (after resolving .. and
// symlinks) needs approval; otherwise the tool's mode decides. A call that
// needs approval runs if this session granted it, if yes was given, or if
// the user allows it when asked; headless without yes it is denied. When ok
// is false, denial is the message for the model (nothing was run). err is
// non-nil only if asking failed (ctx done). A call for an unknown tool or
// with invalid input is let through: Registry.Run refuses it without running
// anything.
func (p *Permissions) Check(ctx context.Context, env *Env, call Call) (ok bool, denial string, err error) {
	reg := builtinRegistry()
	s, known := reg.schemas[call.Name]
	if !known || s.get().validate(call.Input) != "" {
		return true, "", nil
	}
	mode := p.Mode(call.Name)
	if mode == ModeDeny {
		return false, fmt.Sprintf("permission denied: the %s tool is disabled by the configuration (permissions.%s = \"deny\"); nothing was run. Do not retry it: do without it or ask the user.", call.Name, call.Name), nil
	}
	if call.Name == "bash" && sandboxed(env) {
		return true, "", nil // the sandbox is the permission (sandboxed.go)
	}
	req := p.request(env, call)
	if mode == ModeAllow && !req.Outside && !req.RunsCode {
		return true, "", nil
	}
	if p.granted(req) || p.yes {
		return true, "", nil
	}
	if p.asker == nil {
		hint := fmt.Sprintf("the user can re-run with --yes, or set \"permissions\": {%q: \"allow\"} in the user config", call.Name)
		if req.Outside || req.RunsCode {
			hint = "the user can re-run with --yes"
		}
		return false, fmt.Sprintf("permission denied: %s needs approval (%s) and nobody can approve it in this non-interactive run; nothing was run. To allow it, %s. Carry on without it, or explain what you need.", call.Name, req.Reason, hint), nil
	}

	return p.askUser(ctx, req, func(req *Request) {
		if writeTools()[call.Name] && !showsOwnDiffs(p.asker) {
			req.Diff = PreviewDiff(env, call)
		}
	}, nil)
}

// askUser asks the user about req, one question at a time, and applies
// the answer: the ask → grant → deny sequence of every permission check.
// A grant made while this call waited for its turn to ask answers it
// without a question; prepare, when not nil, completes the request just
// before it is asked (a diff worth working out only then). AllowOnce runs
// the call; AllowSession grants req for the session (for this call only
// when req.RunsCode); AllowAlways does too and calls remember, and is a
// denial where remember is nil (only per-domain questions offer it). A
// denial is the model's message, and stops the turn when the user said
// so. err is non-nil only when asking failed (ctx done).
func (p *Permissions) askUser(ctx context.Context, req Request, prepare func(*Request), remember func()) (ok bool, denial string, err error) {
	p.askMu.Lock()
	defer p.askMu.Unlock()
	if p.granted(req) { // granted while this call waited for its turn
		return true, "", nil
	}
	if prepare != nil {
		prepare(&req)
	}
	ans, err := p.ask(ctx, req)
	if err != nil {
		return false, "", fmt.Errorf("ask permission for %s: %w", req.Tool, err)
	}
	switch {
	case ans.Reply == AllowOnce:
		return true, "", nil
	case ans.Reply == AllowSession, ans.Reply == AllowAlways && remember != nil:
		if !req.RunsCode { // never granted for the session: this call only
			p.grant(req)
		}
		if ans.Reply == AllowAlways {
			remember()
		}
		return true, "", nil
	}
	if ans.StopTurn {
		p.mu.Lock()
		p.stopTurn = true
		p.mu.Unlock()
	}
	return false, denialText(req.Tool, ans), nil
}

// DiffShower is an Asker that shows the diffs of write and edit calls
// itself (the ACP server works each out as the call arrives, from the
// editor's buffer): Check leaves Request.Diff empty for it rather than
// work the same diff out twice.
type DiffShower interface {
	ShowsOwnDiffs() bool
}

func showsOwnDiffs(a Asker) bool {
	d, ok := a.(DiffShower)
	return ok && d.ShowsOwnDiffs()
}

// ask asks through the AnswerAsker when the asker is one.
func (p *Permissions) ask(ctx context.Context, req Request) (Answer, error) {
	if a, ok := p.asker.(AnswerAsker); ok {
		return a.AskAnswer(ctx, req)
	}
	r, err := p.asker.Ask(ctx, req)
	return Answer{Reply: r}, err
}

// denialText is the tool result of a call the user declined: their reason
// in their words, and whether they stopped the turn.
func denialText(tool string, ans Answer) string {
	reason := strings.Join(strings.Fields(ans.Reason), " ")
	switch {
	case ans.StopTurn && reason != "":
		return fmt.Sprintf("permission denied: the user declined this %s call and stopped the turn; nothing was run. The user said: %s", tool, reason)
	case ans.StopTurn:
		return fmt.Sprintf("permission denied: the user declined this %s call and stopped the turn; nothing was run. Wait for the user's next message.", tool)
	case reason != "":
		return fmt.Sprintf("permission denied: the user declined this %s call; nothing was run. The user said: %s", tool, reason)
	}
	return fmt.Sprintf("permission denied: the user declined this %s call; nothing was run. Do not retry it as is: try another way or ask the user how to proceed.", tool)
}

// TakeStopTurn reports whether a denial since the last call asked to end
// the turn, and clears it. The loop asks after each call it checked.
func (p *Permissions) TakeStopTurn() bool {
	if p == nil {
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	stop := p.stopTurn
	p.stopTurn = false
	return stop
}

// StopTurn asks the loop to end the turn after the current call, as a
// denial with Answer.StopTurn does: the task tool passes on a stop the
// user gave inside its subagent, which shares these permissions.
func (p *Permissions) StopTurn() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stopTurn = true
}

// writeTools change files; a file that runs as code always asks
// (codepaths.go).
var writeTools = sync.OnceValue(func() map[string]bool { return map[string]bool{"write": true, "edit": true} })

// readOnlyTools may read the saved outputs without approval.
var readOnlyTools = sync.OnceValue(func() map[string]bool { return map[string]bool{"read": true, "grep": true, "glob": true, "ls": true} })

// request describes call for the dialog and the grants.
func (p *Permissions) request(env *Env, call Call) Request {
	req := Request{Tool: call.Name, CallID: call.ID, Title: builtinRegistry().Title(env, call), From: env.AskFrom}
	var in struct {
		Command string `json:"command"`
		Path    string `json:"path"`
		Pattern string `json:"pattern"`
	}
	decodeInput(call.Input, &in)
	var paths []string
	switch call.Name {
	case "bash":
		req.Command = in.Command
		req.Commands, req.Prefixes = shellCommands(in.Command)
	case "read", "write", "edit":
		paths = append(paths, absPath(env.Dir, in.Path))
	case "grep", "ls":
		paths = append(paths, absPath(env.Dir, orDot(in.Path)))
	case "glob":
		root, _ := globRoot(env.Dir, in.Path, in.Pattern)
		paths = append(paths, root)
	}
	dir := resolvePath(env.Dir)
	// Saved full outputs are the agent's own: reading them back (as the
	// truncation notice tells the model to) needs no approval.
	outputs := ""
	if env.OutputDir != "" && readOnlyTools()[call.Name] {
		outputs = resolvePath(absPath(env.Dir, env.OutputDir))
	}
	inside := func(r string) bool { return within(dir, r) || outputs != "" && within(outputs, r) }
	var outside, unresolved, codePaths []string
	codeReason := ""
	for _, path := range paths {
		r, err := resolveLinks(path)
		if writeTools()[call.Name] {
			if why, git := codeFile(env, path, r); why != "" {
				shown := r
				if err != nil {
					shown = path
				}
				codePaths = append(codePaths, shown)
				codeReason = why
				req.GitDir = req.GitDir || git
			}
		}
		if err != nil {
			// A symlink loop: where it leads is unknown, so it is not
			// known to be inside.
			req.Paths = append(req.Paths, path)
			req.Outside = true
			unresolved = append(unresolved, path)
			continue
		}
		req.Paths = append(req.Paths, r)
		if !inside(r) {
			req.Outside = true
			outside = append(outside, r)
		}
	}
	req.RunsCode = len(codePaths) > 0
	switch {
	case req.RunsCode:
		req.Reason = fmt.Sprintf("%s %s, so a change to it always asks", strings.Join(codePaths, ", "), codeReason)
		if req.Outside {
			req.Reason += fmt.Sprintf(" (and it is outside the session directory %s)", dir)
		}
	case len(unresolved) > 0:
		req.Reason = fmt.Sprintf("%s cannot be resolved (%v), so it may lead outside the session directory %s", strings.Join(unresolved, ", "), errLinkLoop, dir)
	case req.Outside:
		req.Reason = fmt.Sprintf("%s is outside the session directory %s", strings.Join(outside, ", "), dir)
	default:
		req.Reason = fmt.Sprintf("the %s tool is set to ask", call.Name)
	}
	return req
}

// grantKeys are the session grants that approve req (all of them needed).
func grantKeys(req Request) []string {
	if req.Tool == "bash" {
		if len(req.Prefixes) == 0 {
			return []string{"bash\x00exact\x00" + strings.TrimSpace(req.Command)}
		}
		keys := make([]string, len(req.Prefixes))
		for i, prefix := range req.Prefixes {
			keys[i] = "bash\x00prefix\x00" + prefix
		}
		return keys
	}
	if req.Domain != "" {
		return []string{req.Tool + "\x00domain\x00" + req.Domain}
	}
	if req.Outside {
		return []string{req.Tool + "\x00outside"}
	}
	return []string{req.Tool}
}

func (p *Permissions) granted(req Request) bool {
	if req.RunsCode {
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if !req.Outside && req.Tool != "bash" && p.grants[req.Tool+"\x00outside"] {
		return true // allowed everywhere covers inside
	}
	for _, k := range grantKeys(req) {
		if !p.grants[k] {
			return false
		}
	}
	return true
}

func (p *Permissions) grant(req Request) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, k := range grantKeys(req) {
		p.grants[k] = true
	}
}

var (
	builtinOnce sync.Once
	builtin     *Registry
)

// builtinRegistry is the registry Permissions uses to validate input and
// title calls.
func builtinRegistry() *Registry {
	builtinOnce.Do(func() { builtin = NewRegistry() })
	return builtin
}

// AskOutside asks the user whether a command the sandbox denied may run
// outside it once (Env.AskOutside): false when nobody can be asked (the
// sandbox was chosen; --yes does not undo it) or the user says no.
func (p *Permissions) AskOutside(ctx context.Context, req Request) bool {
	if p == nil || p.asker == nil {
		return false
	}
	p.askMu.Lock()
	defer p.askMu.Unlock()
	ans, err := p.ask(ctx, req)
	return err == nil && (ans.Reply == AllowOnce || ans.Reply == AllowSession)
}
