// Command testprogress turns `go test -json` on standard input into what a
// person watching `make test` needs: one line per package as it finishes
// ("ok   internal/config  1.2s", "FAIL internal/tui  30.1s"), with the
// output of each failed test, of a package that failed outside a test and
// of a build that failed printed in full, and a last line counting them.
// A line that is not JSON (go vet, a panic before the first event) is
// passed through. It exits 1 when anything failed or no package
// finished, else 0; `make test` runs it at the end of a pipe with
// pipefail, so go test's own exit code counts too.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
)

// event is one line of go test -json (test2json's TestEvent).
type event struct {
	Action      string
	Package     string
	Test        string
	Elapsed     float64
	Output      string
	ImportPath  string
	FailedBuild string
}

func main() {
	os.Exit(run(os.Stdin, os.Stdout, os.Getenv("TESTPROGRESS_MODULE")))
}

// run reads events from in and writes the report to out; module is the
// prefix cut from package names ("" to keep them whole).
func run(in io.Reader, out io.Writer, module string) int {
	name := func(pkg string) string {
		if module != "" {
			if rest, ok := strings.CutPrefix(pkg, module+"/"); ok {
				return rest
			}
		}
		return pkg
	}
	outputs := map[string]*strings.Builder{} // package + "\x00" + test, and build outputs by import path
	take := func(key string) string {
		b := outputs[key]
		delete(outputs, key)
		if b == nil {
			return ""
		}
		return b.String()
	}
	var passed, failed, skipped int
	var failures []string
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var ev event
		if len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &ev) != nil {
			fmt.Fprintf(out, "%s\n", line)
			continue
		}
		key := ev.Package + "\x00" + ev.Test
		switch ev.Action {
		case "build-output":
			key = "build\x00" + ev.ImportPath
			fallthrough
		case "output":
			b := outputs[key]
			if b == nil {
				b = new(strings.Builder)
				outputs[key] = b
			}
			b.WriteString(ev.Output)
		case "build-fail":
			fmt.Fprintf(out, "BUILD FAILED %s\n%s", name(ev.ImportPath), take("build\x00"+ev.ImportPath))
		case "pass", "skip":
			text := take(key)
			if ev.Test != "" {
				continue
			}
			// A package's own pass or skip (no test files): one line.
			if ev.Action == "skip" || strings.Contains(text, "[no test files]") {
				skipped++
				continue
			}
			passed++
			fmt.Fprintf(out, "ok   %-40s %6.1fs\n", name(ev.Package), ev.Elapsed)
		case "fail":
			text := take(key)
			if ev.Test != "" {
				fmt.Fprintf(out, "--- FAIL %s %s (%.2fs)\n%s", name(ev.Package), ev.Test, ev.Elapsed, text)
				continue
			}
			failed++
			fmt.Fprint(out, packageOutput(text)) // a failure outside any test: a panic, TestMain, a timeout
			fmt.Fprintf(out, "FAIL %-40s %6.1fs\n", name(ev.Package), ev.Elapsed)
			failures = append(failures, name(ev.Package))
		}
	}
	if err := sc.Err(); err != nil {
		fmt.Fprintln(out, "testprogress: read:", err)
		return 1
	}
	fmt.Fprintf(out, "%d packages passed, %d failed, %d without tests\n", passed, failed, skipped)
	if len(failures) > 0 {
		fmt.Fprintln(out, "failed:", strings.Join(failures, ", "))
		return 1
	}
	if passed == 0 && failed == 0 && len(failures) == 0 {
		fmt.Fprintln(out, "testprogress: no package finished")
		return 1
	}
	return 0
}

// packageOutput is a package's own output without go test's summary lines
// (the report has its own): what is left says why a package failed
// outside its tests.
func packageOutput(text string) string {
	var b strings.Builder
	for _, l := range strings.SplitAfter(text, "\n") {
		t := strings.TrimSpace(l)
		if t == "" || t == "PASS" || t == "FAIL" || strings.HasPrefix(t, "FAIL\t") || strings.HasPrefix(t, "ok ") ||
			strings.HasPrefix(t, "ok\t") || strings.HasPrefix(t, "--- FAIL") || strings.HasPrefix(t, "coverage:") {
			continue
		}
		b.WriteString(l)
	}
	return b.String()
}
