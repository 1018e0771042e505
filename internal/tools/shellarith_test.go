package tools

import (
	"context"
	"slices"
	"testing"
)

// TestPermissionsEchoGrantRunsNothingElse: the probes of hardening 2,
// item 4. With echo allowed for the session, none of these lines may run
// without a question: bash evaluates their operands as arithmetic (an
// array subscript there runs its command substitution), or a builtin
// assigns a variable (PATH) that changes which program a granted command
// runs.
func TestPermissionsEchoGrantRunsNothingElse(t *testing.T) {
	env := newEnv(t)
	ctx := context.Background()
	a := &fakeAsker{reply: AllowSession}
	p := NewPermissions(nil, a, false)
	grant := func(cmd string) {
		t.Helper()
		if ok, denial, _ := p.Check(ctx, env, mkCall("bash", map[string]any{"command": cmd})); !ok {
			t.Fatalf("%s denied: %s", cmd, denial)
		}
	}
	grant("echo hi")
	grant("ls")
	if a.count() != 2 {
		t.Fatalf("asked %d times granting echo and ls", a.count())
	}
	grant("echo again && ls -la") // covered: no question
	if a.count() != 2 {
		t.Fatal("the echo and ls grants do not cover echo && ls")
	}
	for _, line := range []string{
		`[[ 'a[$(touch X)]' -eq 0 ]] && echo ok`,
		`for n in 'a[$(touch X)]'; do echo $((n)); done`,
		`printf -v PATH /tmp/evil; ls`,
		`read -r PATH <<< /tmp/evil; ls`,
		`mapfile -t PATH <<< /tmp/evil; ls`,
	} {
		before := a.count()
		grant(line)
		if a.count() == before {
			t.Errorf("%s ran under the echo and ls grants without a question", line)
		} else if req := a.asked[a.count()-1]; len(req.Prefixes) != 0 {
			t.Errorf("%s can be granted by prefix %q; it must be granted exactly", line, req.Prefixes)
		}
	}
}

// TestShellGrantExactOnly: every way bash evaluates text as arithmetic
// with an operand that is not a number or a variable the line cannot
// have set, and every builtin that assigns a variable by name or runs a
// command, makes a line exact-grant only.
func TestShellGrantExactOnly(t *testing.T) {
	for _, line := range exactOnlyLines {
		if _, prefixes := shellCommands(line); prefixes != nil {
			t.Errorf("shellCommands(%q) grants by prefix %q; want exact grant only", line, prefixes)
		}
	}
}

// exactOnlyLines are granted exactly, never by prefix (item 4 of
// hardening 2); they seed FuzzShellGrantAgainstBash.
var exactOnlyLines = []string{
	// Arithmetic on a string: its subscript runs a command.
	`[[ 'a[$(touch X)]' -eq 0 ]] && echo ok`,
	`[[ 1 -ne 'a[$(touch X)]' ]]`,
	`[[ "a[\$(touch X)]" -lt 1 || x -gt 1 ]]`,
	`[[ x -le 1 ]]; [[ 1 -ge $(cat n) ]]`,
	// A variable the line set (loop, select, function argument, $_,
	// BASH_REMATCH) is evaluated again as arithmetic.
	`for n in 'a[$(touch X)]'; do echo $((n)); done`,
	`for n in 'a[$(touch X)]'; do echo $[n]; done`,
	`for n in 'a[$(touch X)]'; do (( n )); done`,
	`for n in 'a[$(touch X)]'; do [[ n -eq 1 ]]; done`,
	`for n in 'a[$(touch X)]'; do [[ $n -lt 1 ]]; done`,
	`for n in $(cat list); do echo $((n+1)); done`,
	`for n in *; do echo $((n)); done`,
	`for n; do echo $((n)); done`,
	`select n in 'a[$(touch X)]'; do echo $((n)); break; done <<< 1`,
	`f() { echo $(($1)); }; f 'a[$(touch X)]'`,
	`echo 'a[$(touch X)]'; echo $(($_))`,
	`[[ 'a[$(touch X)]' =~ .* ]]; echo $((BASH_REMATCH))`,
	`for n in 'a[$(touch X)]'; do for ((i=n; i<1; i++)); do :; done; done`,
	// Subscripts, slices and indirection outside $(( )).
	`for n in 'a[$(touch X)]'; do echo ${a[n]}; done`,
	`for n in 'a[$(touch X)]'; do echo ${x:n}; done`,
	`for n in 'a[$(touch X)]'; do echo ${x:1:$n}; done`,
	`for n in 'a[$(touch X)]'; do echo ${a[@]:n}; done`,
	`for n in 'a[$(touch X)]'; do echo ${!n}; done`,
	`for n in '$(touch X)'; do echo ${n@P}; done`,
	// Arithmetic assigns: PATH=1 makes "ls" the program 1/ls.
	`(( PATH = 1 )); ls`,
	`echo $(( IFS = 1 ))`,
	`for ((PATH=0; PATH<1; PATH++)); do ls; done`,
	`(( _ = 1 ))`,
	// -v reads a subscript.
	`[[ -v 'a[$(touch X)]' ]]`,
	`for n in 'a[$(touch X)]'; do [[ -v $n ]]; done`,
	`test -v 'a[$(touch X)]'`,
	`test $o x`,
	// Builtins that assign variables by name or run commands.
	`printf -v PATH /tmp/evil; ls`,
	`printf -vPATH /tmp/evil; ls`,
	`for o in -v; do printf $o PATH /tmp/evil; done; ls`,
	`printf "$f" x`,
	`read -r PATH <<< /tmp/evil; ls`,
	`read PATH < f; ls`,
	`mapfile -t PATH <<< /tmp/evil; ls`,
	`readarray PATH < f; ls`,
	`mapfile -C 'touch X' -c 1 < f`,
	`let PATH=1; ls`,
	`let 'a[$(touch X)]'`,
	`getopts p PATH; ls`,
	`wait -p PATH; ls`,
	`compgen -C 'touch X' x`,
	`compgen -W '$(touch X)' x`,
	`complete -C 'touch X' ls`,
	`jobs -x touch X`,
	`fc -s`,
	`bind -x '"a":touch X'`,
	`history -s x`,
	`coproc touch X`,
	`declare -n r=PATH; r=/tmp; ls`,
	`local -a PATH`,
	`typeset -i n`,
	`enable -f ./x.so x`,
	`hash -p ./evil ls; ls`,
	`builtin read PATH; ls`,
	`command read PATH; ls`,
	`trap 'touch X' EXIT`,
	`setsid touch X`,
	`stdbuf -o0 touch X`,
	// Arithmetic or a subshell: bash may read these as subshells; the
	// parser refuses them.
	"echo $((touch X) )",
	"((touch X) || (ls)); echo",
	"echo $[touch X]",
	"echo $(( a['$(touch X)'] ))",
	// Control characters: bash reads "ls\r" as one word, the parser as ls.
	"ls\r",
	"echo a\rtouch X",
	"ls\x0b-la",
}

// TestShellGrantArithmeticStaysGrantable: arithmetic on numbers and on
// variables the line cannot set is granted per command as before.
func TestShellGrantArithmeticStaysGrantable(t *testing.T) {
	for _, tt := range grantableArithmetic {
		if _, prefixes := shellCommands(tt.line); !slices.Equal(prefixes, tt.prefixes) {
			t.Errorf("shellCommands(%q) prefixes %q; want %q", tt.line, prefixes, tt.prefixes)
		}
	}
}

// grantableArithmetic are granted by these prefixes; they seed
// FuzzShellGrantAgainstBash.
var grantableArithmetic = []struct {
	line     string
	prefixes []string
}{
	{`echo $((1 + 2 * 3))`, []string{"echo"}},
	{`for i in 1 2 3; do echo $((i * 2)); done`, []string{"echo"}},
	{`for i in {1..5}; do echo $[i+1]; done`, []string{"echo"}},
	{`for ((i = 0; i < 3; i++)); do echo $i; done`, []string{"echo"}},
	{`(( count += 1 )); echo $count`, []string{"echo"}},
	{`[[ $# -gt 0 ]] && echo args`, []string{"echo"}},
	{`[[ ${#x} -eq 0 && "$n" -lt 16#ff ]] && echo empty`, []string{"echo"}},
	{`[[ -v name ]] && echo set`, []string{"echo"}},
	{`echo ${a[0]} ${a[@]} ${!a[@]} ${x:1:2} ${#a[@]}`, []string{"echo"}},
	{`echo $((RANDOM % 6 + 1))`, []string{"echo"}},
	{`for f in *.go; do echo "$f"; done`, []string{"echo"}},
	{`printf '%s\n' "$x"`, []string{"printf"}},
	{`printf -- '-v %s\n' x`, []string{"printf"}},
	{`printf "value: $x\n"`, []string{"printf"}},
	{`test -f go.mod && go build ./...`, []string{"test", "go build"}},
	{`sleep 1 & wait`, []string{"sleep", "wait"}},
}
