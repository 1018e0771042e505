package sandbox

// The relay: the sandbox's first process when the policy lists hosts
// (proxy.go). It is the agent's own binary re-executed inside the
// namespaces, with relayArg first: it listens on the namespace's
// 127.0.0.1 (the only network there), forwards each connection to the
// proxy's Unix socket, points the command at itself with the proxy
// variables, runs the command, passes it the signals it gets, and exits
// as the command did. A refusal of the proxy is written to stderr once
// per host (deniedLine), for the model to read in the command's output.
//
// A binary serves as the relay only when its main calls RelayEntry first;
// Wrap refuses a list of hosts in one that did not (a test binary of
// another package), rather than re-running it with arguments it would
// misread.

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
)

// relayArg is the hidden first argument that makes the binary the relay.
const relayArg = "__agent-sandbox-relay"

// relaySocket is the proxy's socket's name in the command's temp dir.
const relaySocket = "proxy.sock"

var relayReady atomic.Bool

// RelayEntry is the first thing a binary that runs sandboxed commands with
// a host list does in main: run as the relay when started as one (it then
// exits), else note that this binary can be one.
func RelayEntry() {
	if len(os.Args) > 2 && os.Args[1] == relayArg {
		os.Exit(relay(os.Args[2], os.Args[3:]))
	}
	relayReady.Store(true)
}

// relayExecutable is the binary Wrap re-executes as the relay.
func relayExecutable() (string, error) {
	if !relayReady.Load() {
		return "", fmt.Errorf("sandbox.network lists hosts, but this program cannot run the sandbox's network relay")
	}
	return os.Executable()
}

// relay forwards 127.0.0.1:PORT to the proxy at sock and runs argv.
func relay(sock string, argv []string) int {
	if len(argv) == 0 {
		fmt.Fprintln(os.Stderr, "sandbox relay: no command")
		return 2
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, "sandbox relay:", err)
		return 126
	}
	var said sync.Map // hosts already reported
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go relayConn(c, sock, &said)
		}
	}()
	url := "http://" + ln.Addr().String()
	env := os.Environ()
	for _, k := range []string{"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY"} {
		env = withoutVar(withoutVar(env, k), strings.ToLower(k))
		if k != "NO_PROXY" {
			env = append(env, k+"="+url, strings.ToLower(k)+"="+url)
		}
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr, cmd.Env = os.Stdin, os.Stdout, os.Stderr, env
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT)
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "sandbox relay:", err)
		return 127
	}
	go func() {
		for s := range sigs {
			cmd.Process.Signal(s)
		}
	}()
	err = cmd.Wait()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	if err != nil && cmd.ProcessState.ExitCode() < 0 {
		return 1
	}
	return cmd.ProcessState.ExitCode()
}

// relayConn joins one client to the proxy, reporting a refusal.
func relayConn(c net.Conn, sock string, said *sync.Map) {
	defer c.Close()
	up, err := net.Dial("unix", sock)
	if err != nil {
		return
	}
	defer up.Close()
	go func() {
		io.Copy(up, c)
		up.(*net.UnixConn).CloseWrite()
	}()
	br := bufio.NewReader(up)
	if head, err := br.Peek(12); err == nil && string(head[9:12]) == "403" {
		if host := deniedHost(br); host != "" {
			if _, dup := said.LoadOrStore(host, true); !dup {
				fmt.Fprintln(os.Stderr, deniedLine(host))
			}
		}
	}
	io.Copy(c, br)
}

// deniedHost reads the proxy's deny header from a buffered response head
// without consuming it.
func deniedHost(br *bufio.Reader) string {
	n := br.Buffered()
	if n < 512 {
		br.Peek(512) // at least the head, usually whole
		n = br.Buffered()
	}
	b, _ := br.Peek(n)
	for _, line := range strings.Split(string(b), "\r\n") {
		if line == "" {
			break
		}
		if v, ok := strings.CutPrefix(line, deniedHeader+": "); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}
