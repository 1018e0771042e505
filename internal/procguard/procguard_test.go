package procguard

import (
	"bytes"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
)

// envChild makes the test binary, started again with it set, run the
// child side of a test.
const envChild = "PROCGUARD_TEST_CHILD"

const marker = "sk-procguard-marker-0123456789"

func TestMain(m *testing.M) {
	if os.Getenv(envChild) != "" {
		child()
		return
	}
	os.Exit(m.Run())
}

// child hardens itself, then runs a shell that tries to read it the way a
// hostile tool would, and prints what the shell got and what Getenv says.
func child() {
	Harden()
	sh := exec.Command("sh", "-c", `echo "environ:$(tr '\0' '\n' < /proc/$PPID/environ | grep OPENAI_API_KEY)"; echo "mem:$(head -c 1 /proc/$PPID/mem 2>&1 >/dev/null)"`)
	sh.Env = []string{"PATH=" + os.Getenv("PATH")}
	var out []byte
	var err error
	done := make(chan struct{})
	go func() { // as the bash tool and the spawner start children
		defer close(done)
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		DropPtraceForChildren()
		out, err = sh.CombinedOutput()
	}()
	<-done
	os.Stdout.Write(out)
	if err != nil {
		os.Stdout.WriteString("shell: " + err.Error() + "\n")
	}
	self, _ := os.ReadFile("/proc/self/environ")
	os.Stdout.WriteString("self-has-key:" + boolString(bytes.Contains(self, []byte(marker))) + "\n")
	os.Stdout.WriteString("getenv:" + os.Getenv("OPENAI_API_KEY") + "\n")
	os.Exit(0)
}

func boolString(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// TestChildCannotReadTheKey starts a hardened process with the key in its
// environment: a shell it starts (as the same user, root in CI) finds no
// key in its /proc/PPID/environ and cannot open /proc/PPID/mem, while the
// process itself still has the key.
func TestChildCannotReadTheKey(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("Harden does nothing here")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), envChild+"=1", "OPENAI_API_KEY="+marker)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	got := string(out)
	t.Logf("child:\n%s", got)
	if strings.Contains(got, "environ:OPENAI_API_KEY="+marker[:6]) || strings.Count(got, marker) != 1 {
		t.Errorf("the shell read the key out of its parent:\n%s", got)
	}
	if !strings.Contains(got, "self-has-key:no") {
		t.Errorf("/proc/self/environ still holds the key:\n%s", got)
	}
	if !strings.Contains(got, "getenv:"+marker+"\n") {
		t.Errorf("Getenv lost the key:\n%s", got)
	}
	if os.Geteuid() == 0 && !strings.Contains(got, "Permission denied") {
		t.Errorf("the shell could open its parent's /proc/PID/mem (want an error line):\n%s", got)
	}
}
