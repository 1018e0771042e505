package sandbox

// The network allow-list (Policy.Hosts): the command's network namespace
// stays closed (loopback only), and the one way out is a proxy the agent
// runs for the command, outside the namespace, on a Unix socket in the
// command's temp directory (bound into the sandbox). Inside, the relay
// (relay.go: the agent's own binary, re-executed as the sandbox's first
// process) listens on the namespace's 127.0.0.1 and forwards each
// connection to that socket, and the command finds it through
// HTTP_PROXY/HTTPS_PROXY/ALL_PROXY. So only programs that honour those
// variables (curl, git over https, go, pip, npm) reach the network, and
// only the listed hosts.
//
// The proxy's contract: a CONNECT host:port (https, or any tunnel) or a
// plain HTTP request with an absolute URL is served when the host is in
// the list (hostAllowed), else answered 403 naming the host, with the
// header X-Agent-Sandbox-Denied that the relay turns into a line on the
// command's stderr for the model (deniedLine).

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// deniedHeader marks the proxy's refusals for the relay.
const deniedHeader = "X-Agent-Sandbox-Denied"

// deniedLine is what the command's stderr says of a refused host; Explain
// reads it back (explain.go's proxyDenied).
func deniedLine(host string) string {
	return fmt.Sprintf("sandbox: network connection to %s denied: the host is not in sandbox.network's allow-list", host)
}

// hostAllowed reports whether hostport (host:port, as a CONNECT or a URL
// names it) is in hosts. An entry is a host name or IP ("example.com":
// any port), a host:port (that port only), or "*.example.com" (the
// domain and its subdomains). Case and a trailing dot do not matter.
func hostAllowed(hosts []string, hostport string) bool {
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		host, port = hostport, ""
	}
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	for _, e := range hosts {
		e = strings.ToLower(strings.TrimSpace(e))
		eh, ep, err := net.SplitHostPort(e)
		if err != nil {
			eh, ep = e, ""
		}
		eh = strings.Trim(eh, "[]")
		eh = strings.TrimSuffix(eh, ".")
		if ep != "" && ep != port {
			continue
		}
		if d, ok := strings.CutPrefix(eh, "*."); ok {
			if host == d || strings.HasSuffix(host, "."+d) {
				return true
			}
			continue
		}
		if host == eh {
			return true
		}
	}
	return false
}

// proxy serves one sandboxed command's connections on ln until closed.
type proxy struct {
	ln    net.Listener
	hosts []string
	wg    sync.WaitGroup
	mu    sync.Mutex
	conns map[net.Conn]bool
}

func startProxy(ln net.Listener, hosts []string) *proxy {
	p := &proxy{ln: ln, hosts: hosts, conns: map[net.Conn]bool{}}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			p.track(c, true)
			p.wg.Add(1)
			go func() {
				defer p.wg.Done()
				defer p.track(c, false)
				p.serve(c)
			}()
		}
	}()
	return p
}

// close stops the proxy and ends the connections still open.
func (p *proxy) close() {
	p.ln.Close()
	p.mu.Lock()
	for c := range p.conns {
		c.Close()
	}
	p.mu.Unlock()
	p.wg.Wait()
}

func (p *proxy) track(c net.Conn, add bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if add {
		p.conns[c] = true
	} else {
		delete(p.conns, c)
		c.Close()
	}
}

// serve answers one client connection: one CONNECT tunnel, or one plain
// HTTP request (Connection: close).
func (p *proxy) serve(c net.Conn) {
	c.SetReadDeadline(time.Now().Add(30 * time.Second))
	br := bufio.NewReader(c)
	req, err := http.ReadRequest(br)
	if err != nil {
		return
	}
	c.SetReadDeadline(time.Time{})
	target := req.Host
	if req.Method != http.MethodConnect {
		if req.URL.Host == "" {
			refuse(c, http.StatusBadRequest, "", "sandbox proxy: want an absolute URL or CONNECT")
			return
		}
		target = req.URL.Host
		if req.URL.Port() == "" {
			target = net.JoinHostPort(req.URL.Hostname(), "80")
		}
	}
	if !hostAllowed(p.hosts, target) {
		host := target
		if h, port, err := net.SplitHostPort(target); err == nil && (port == "80" || port == "443") {
			host = h
		}
		refuse(c, http.StatusForbidden, host, deniedLine(host)+`: the user can allow it by adding "`+host+`" to "sandbox": {"network": [...]} in the user config`)
		return
	}
	up, err := net.DialTimeout("tcp", target, 10*time.Second)
	if err != nil {
		refuse(c, http.StatusBadGateway, "", "sandbox proxy: "+err.Error())
		return
	}
	p.track(up, true)
	defer p.track(up, false)
	if req.Method == http.MethodConnect {
		io.WriteString(c, "HTTP/1.1 200 Connection established\r\n\r\n")
		if n := br.Buffered(); n > 0 {
			b, _ := br.Peek(n)
			up.Write(b)
		}
	} else {
		req.Header.Del("Proxy-Connection")
		req.Header.Del("Proxy-Authorization")
		req.Close = true
		if err := req.Write(up); err != nil { // origin form: the path, not the URL
			return
		}
	}
	done := make(chan struct{})
	go func() {
		io.Copy(up, br)
		if tc, ok := up.(*net.TCPConn); ok {
			tc.CloseWrite()
		}
		close(done)
	}()
	io.Copy(c, up)
	c.Close()
	<-done
}

// refuse answers the client with status and msg (and, for a denied host,
// the header the relay reports).
func refuse(c net.Conn, status int, deniedHost, msg string) {
	h := ""
	if deniedHost != "" {
		h = deniedHeader + ": " + deniedHost + "\r\n"
	}
	fmt.Fprintf(c, "HTTP/1.1 %d %s\r\n%sContent-Type: text/plain\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s\n",
		status, http.StatusText(status), h, len(msg)+1, msg)
}

// startAllowList starts the proxy for hosts on a socket in the command's
// temp dir tmp; relayArgs go before the command in bwrap's arguments,
// and stop ends the proxy once the command is done.
func startAllowList(hosts []string, tmp string) (stop func(), relayArgs []string, err error) {
	exe, err := relayExecutable()
	if err != nil {
		return nil, nil, err
	}
	sock := filepath.Join(tmp, relaySocket)
	ln, err := net.Listen("unix", sock)
	if err != nil {
		return nil, nil, fmt.Errorf("sandbox: network proxy: %w", err)
	}
	p := startProxy(ln, hosts)
	return p.close, []string{exe, relayArg, sock}, nil
}
