//go:build linux

package tools

// FuzzShellGrantAgainstBash checks the grant checker (shellgrant.go,
// shellarith.go) against bash itself. For a line the checker grants by
// prefix, it runs the line in a throw-away bash with every simple command
// traced (set -x to a private descriptor) and fails if bash executed a
// command, or made an assignment, that the prefixes do not cover: what
// bash runs is the truth, whatever the line hides in arithmetic,
// subscripts or strings.
//
// The run is a sandbox, because a generated line may say anything:
// restricted bash (bash -r: no "/" in command names, no output
// redirection, no cd, exec or enable of disabled builtins), kill and
// suspend disabled, PATH a temporary directory of stub programs that only
// exit (one per granted name), a clean environment, stdin /dev/null, the
// limits of ulimit (processes, memory, CPU, file size), uid 65534 when the
// test runs as root, and its whole process group killed after it exits or
// after runTimeout. `go test` runs the seed corpus in well under a second;
// `make fuzz` mutates it.

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"
)

const (
	bashTraceTimeout = 2 * time.Second
	// traceMark is PS4: bash writes it (repeated per nesting level)
	// before each traced command.
	traceMark = "\x1e"
)

func FuzzShellGrantAgainstBash(f *testing.F) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		f.Skip("no bash")
	}
	for _, line := range shellGrantSeeds() {
		f.Add(line)
	}
	f.Fuzz(func(t *testing.T, line string) {
		// The input as a line, and the line its bytes choose from the
		// grammar of hazards (generatedLine).
		checkAgainstBash(t, bash, line)
		checkAgainstBash(t, bash, generatedLine([]byte(line)))
	})
}

// checkAgainstBash fails t when bash runs a command of line that the
// prefixes the checker grants it by do not cover.
func checkAgainstBash(t *testing.T, bash, line string) {
	t.Helper()
	if len(line) > 400 || !utf8.ValidString(line) || strings.ContainsAny(line, "\x00"+traceMark) {
		return
	}
	_, prefixes := shellCommands(line)
	if prefixes == nil {
		return // asked, or granted only for this exact line
	}
	trace, err := traceBash(t, bash, line, prefixes)
	if err != nil {
		t.Fatalf("run %q: %v", line, err)
	}
	if bad := uncovered(trace, prefixes); len(bad) > 0 {
		t.Errorf("the grants %q cover %q, but bash also ran %q\ntrace:\n%s", prefixes, line, bad, strings.ReplaceAll(trace, traceMark, "+"))
	}
}

// generatedLine builds a bash line from a small grammar of the places
// bash evaluates text (arithmetic, subscripts, slices, indirection,
// prompt expansion, -v) and the ways a line sets a variable (loops,
// select, function arguments, $_, BASH_REMATCH, assigning builtins), each
// choice taken from the next byte of b. The hidden command is always
// touch, which no grant in these lines names.
func generatedLine(b []byte) string {
	g := lineGen{b: b}
	return g.stmt(0)
}

type lineGen struct {
	b []byte
	i int
}

func (g *lineGen) pick(options ...string) string {
	c := 0
	if g.i < len(g.b) {
		c = int(g.b[g.i])
		g.i++
	}
	return options[c%len(options)]
}

var (
	genVars  = []string{"n", "i", "x", "PATH", "_", "REPLY", "BASH_REMATCH", "RANDOM"}
	genWords = []string{`'a[$(touch X)]'`, "1", `"$n"`, "$n", "-v", `'$(touch X)'`, "n", "$1", `"$@"`, "*", "$(ls)", "{1..2}", `"a[$i]"`, "${n}"}
)

func (g *lineGen) word() string { return g.pick(genWords...) }
func (g *lineGen) name() string { return g.pick(genVars...) }

func (g *lineGen) arith(depth int) string {
	if depth > 2 {
		return g.pick("1", "n", "$n", "i")
	}
	switch g.pick("leaf", "var", "$var", "bin", "sub", "assign", "special", "nested", "quoted") {
	case "leaf":
		return g.pick("1", "0x1f", "16#ff", "2#1")
	case "var":
		return g.name()
	case "$var":
		return "$" + g.name()
	case "bin":
		return g.arith(depth+1) + g.pick("+", "*", "<", "==", ",") + g.arith(depth+1)
	case "sub":
		return "a[" + g.arith(depth+1) + "]"
	case "assign":
		return g.name() + g.pick("=", "+=") + g.arith(depth+1)
	case "special":
		return g.pick("$1", "$_", "${#n}", "$#", "${n:-0}", "${!n}")
	case "nested":
		return "$((" + g.arith(depth+1) + "))"
	}
	return `"` + g.arith(depth+1) + `"`
}

func (g *lineGen) stmt(depth int) string {
	if depth > 2 {
		return g.pick("echo ok", "ls", "echo $n")
	}
	d := depth + 1
	switch g.pick("for", "test", "arithcmd", "arithexp", "param", "func", "builtin", "seq", "subst", "case", "select", "lastarg", "rematch", "heredoc", "cfor", "simple") {
	case "for":
		return "for " + g.name() + " in " + g.word() + " " + g.word() + "; do " + g.stmt(d) + "; done"
	case "test":
		return "[[ " + g.pick(g.word(), g.arith(d)) + " " + g.pick("-eq", "-lt", "-ge", "==", "-nt") + " " + g.pick(g.word(), g.arith(d)) + " ]] && " + g.stmt(d)
	case "arithcmd":
		return "(( " + g.arith(0) + " )); " + g.stmt(d)
	case "arithexp":
		return "echo " + g.pick("$(( "+g.arith(0)+" ))", "$[ "+g.arith(0)+" ]")
	case "param":
		v := g.name()
		return "echo " + g.pick("${a["+g.arith(0)+"]}", "${"+v+":"+g.arith(0)+"}", "${"+v+":1:"+g.arith(0)+"}", "${!"+v+"}", "${"+v+"@P}", "${"+v+"@Q}", "${#a["+g.arith(0)+"]}", "${a[@]:"+g.arith(0)+"}")
	case "func":
		return "f() { " + g.stmt(d) + "; }; f " + g.word()
	case "builtin":
		v := g.name()
		return g.pick("printf -v "+v+" %s "+g.word(), "read -r "+v+" <<< "+g.word(), "mapfile -t "+v+" <<< "+g.word(), "test -v "+g.word(),
			"wait -p "+v, "let "+g.arith(0), "getopts ab "+v, "compgen -W "+g.word()+" x", "printf "+g.word()+" "+v+" x", "test "+g.word()+" "+g.word()) + "; " + g.stmt(d)
	case "seq":
		return g.stmt(d) + g.pick("; ", " && ", " || ", " | ") + g.stmt(d)
	case "subst":
		return "echo $(" + g.stmt(d) + ")"
	case "case":
		return "case " + g.word() + " in $((" + g.arith(0) + "))) " + g.stmt(d) + ";; *) " + g.stmt(d) + ";; esac"
	case "select":
		return "select " + g.name() + " in " + g.word() + "; do " + g.stmt(d) + "; break; done <<< 1"
	case "lastarg":
		return "echo " + g.word() + "; " + g.stmt(d)
	case "rematch":
		return "[[ " + g.word() + " =~ .* ]]; " + g.stmt(d)
	case "heredoc":
		return "cat <<E\n$((" + g.arith(0) + "))\nE\n" + g.stmt(d)
	case "cfor":
		return "for ((" + g.arith(0) + "; " + g.arith(0) + "; " + g.arith(0) + ")); do " + g.stmt(d) + "; break; done"
	}
	return g.pick("echo ", "ls ", "printf '%s' ") + g.word()
}

// shellGrantSeeds are the lines of the checker's test tables and the
// probes of hardening 2, item 4.
func shellGrantSeeds() []string {
	seeds := []string{
		`[[ 'a[$(touch X)]' -eq 0 ]] && echo ok`,
		`for n in 'a[$(touch X)]'; do echo $((n)); done`,
		`printf -v PATH %s .; ls`,
		`read -r PATH <<< .; ls`,
		`mapfile -t PATH <<< .; ls`,
		`for i in 1 2 3; do echo $((i*2)) ${a[i]} ${x:i}; done; ls`,
		`f() { echo "$@"; ls; }; f a b | sort`,
		"for n in 'a[$(touch X)]'; do cat <<EOF\n$((n)) ${a[n]}\nEOF\ndone",
		`for n in 'a[$(touch X)]'; do [[ -n ${a[n]:-} || 1 -eq $((n)) ]] && echo "${x:n:1}"; done`,
		`echo "$(( $(echo 1) + 1 ))" ${!x} ${x@P} $[ x[1] ] | tr a b`,
		`case $((n)) in 1) echo one;; *) ls;; esac`,
	}
	seeds = append(seeds, exactOnlyLines...)
	for _, tt := range grantableArithmetic {
		seeds = append(seeds, tt.line)
	}
	for _, tt := range shellCommandsCases {
		seeds = append(seeds, tt.cmd)
	}
	return seeds
}

// traceBash runs line in a sandboxed bash (see the file comment) and
// returns its xtrace.
func traceBash(t *testing.T, bash, line string, prefixes []string) (string, error) {
	dir, err := os.MkdirTemp("", "grantfuzz")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(dir)
	bin, work := filepath.Join(dir, "bin"), filepath.Join(dir, "work")
	for _, d := range []string{dir, bin, work} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return "", err
		}
		if err := os.Chmod(d, 0o755); err != nil { // readable by uid 65534
			return "", err
		}
	}
	stub := filepath.Join(dir, "stub")
	if err := os.WriteFile(stub, []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		return "", err
	}
	for _, p := range prefixes {
		name, _, _ := strings.Cut(p, " ")
		if strings.Contains(name, "/") || name == "." || name == ".." {
			continue
		}
		// Best effort: a name too long for a file is not found, and
		// traced all the same.
		os.Link(stub, filepath.Join(bin, name))
	}
	traceFile, err := os.Create(filepath.Join(dir, "trace"))
	if err != nil {
		return "", err
	}
	defer traceFile.Close()

	attr := &syscall.SysProcAttr{Setpgid: true}
	procs := 256
	if os.Geteuid() == 0 {
		// Root ignores the process limit; nobody's processes are few.
		attr.Credential = &syscall.Credential{Uid: 65534, Gid: 65534}
	} else {
		procs += userTasks(os.Getuid())
	}
	preamble := fmt.Sprintf("ulimit -u %d -v 1048576 -t 5 -f 1024 -c 0\nenable -n kill suspend\nBASH_XTRACEFD=3\nPS4=$'%s'\nset -x\n", procs, traceMark)
	cmd := exec.Command(bash, "-r", "-c", preamble+line)
	cmd.Dir = work
	cmd.Env = []string{"PATH=" + bin, "HOME=" + work, "LC_ALL=C"}
	cmd.ExtraFiles = []*os.File{traceFile}
	cmd.SysProcAttr = attr
	if err := cmd.Start(); err != nil {
		return "", err
	}
	done := make(chan struct{})
	go func() {
		cmd.Wait()
		close(done)
	}()
	timer := time.NewTimer(bashTraceTimeout)
	defer timer.Stop()
	select {
	case <-done:
	case <-timer.C:
		t.Logf("%q still ran after %v: killed", line, bashTraceTimeout)
	}
	// Background jobs (cmd &) outlive bash: end the whole group.
	syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	<-done
	trace, err := os.ReadFile(traceFile.Name())
	return string(trace), err
}

// userTasks counts the threads of uid, which its process limit counts.
func userTasks(uid int) int {
	n := 0
	procs, _ := filepath.Glob("/proc/[0-9]*/task/[0-9]*")
	for _, p := range procs {
		var st syscall.Stat_t
		if syscall.Stat(p, &st) == nil && int(st.Uid) == uid {
			n++
		}
	}
	return n
}

var traceAssignment = onceRegexp(`^[A-Za-z_][A-Za-z0-9_]*(\[[^]]*\])?\+?=`)

// uncovered returns the commands and assignments in an xtrace that no
// prefix grants. Keywords traced (for, select, case, [[, (( ) are not
// commands.
func uncovered(trace string, prefixes []string) []string {
	granted := map[string]bool{}
	for _, p := range prefixes {
		name, _, _ := strings.Cut(p, " ")
		granted[name] = true
	}
	var bad []string
	for _, rec := range strings.Split("\n"+trace, "\n"+traceMark) {
		rec = strings.TrimLeft(rec, traceMark)
		if strings.TrimSpace(rec) == "" {
			continue
		}
		first, _, _ := strings.Cut(rec, "\n")
		name, _, _ := strings.Cut(first, " ")
		switch {
		case name == "for" || name == "select" || name == "case" || strings.HasPrefix(name, "[[") || strings.HasPrefix(name, "(("):
		case traceAssignment().MatchString(first):
			bad = append(bad, "assignment "+first)
		case !granted[name]:
			bad = append(bad, name)
		}
	}
	return bad
}

// TestUncoveredReadsTheTrace: the oracle's reading of bash's trace.
func TestUncoveredReadsTheTrace(t *testing.T) {
	m := traceMark
	trace := m + "for i in 1 2\n" + m + "echo 'a\nb'\n" + m + m + "touch X\n" + m + "[[ x -eq 0 ]]\n" + m + "((  1  ))\n" + m + "PATH=.\n" + m + "go test ./...\n"
	got := uncovered(trace, []string{"echo", "go test"})
	want := []string{"touch", "assignment PATH=."}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("uncovered = %q; want %q", got, want)
	}
	if got := uncovered("", []string{"echo"}); got != nil {
		t.Fatalf("an empty trace ran %q", got)
	}
}

// TestTraceBashSeesHiddenCommands: the oracle sees what the old checker
// missed — touch run by an arithmetic subscript — and what the sandbox
// refuses is refused.
func TestTraceBashSeesHiddenCommands(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	for _, tt := range []struct {
		line string
		want []string
	}{
		{`[[ 'a[$(touch X)]' -eq 0 ]] && echo ok`, []string{"touch"}},
		{`for n in 'a[$(touch X)]'; do echo $((n)); done`, []string{"touch"}},
		{`echo ok; ls`, nil},
		{`echo ok; /bin/touch X; kill -9 -1; echo $(cd / && pwd)`, []string{"/bin/touch", "kill", "cd"}},
	} {
		trace, err := traceBash(t, bash, tt.line, []string{"echo"})
		if err != nil {
			t.Fatal(err)
		}
		if got := uncovered(trace, []string{"echo", "ls"}); fmt.Sprint(got) != fmt.Sprint(tt.want) {
			t.Errorf("%s: uncovered %q; want %q\ntrace %q", tt.line, got, tt.want, trace)
		}
	}
}
