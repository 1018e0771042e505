package webfetch

// One fetch: a GET bounded in time (the whole exchange, body included, so
// a server that dribbles is cut at the timeout), in redirects (at most
// maxRedirects, each hop's URL checked again, and a hop to another host
// is not followed but reported: its domain is asked about on its own),
// and in size (the body is read through a limit before anything decodes
// it; a longer one is cut with a note).

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"time"
)

// maxRedirects bounds the redirects followed within one host.
const maxRedirects = 5

// maxHeaderBytes bounds a response's headers.
const maxHeaderBytes = 64 << 10

// userAgent names the agent to the servers it fetches from.
const userAgent = "agent-web-fetch/1 (+https://github.com/ctxloop/agent)"

// response is what a fetch brought back.
type response struct {
	finalURL    *url.URL
	status      int
	statusText  string
	contentType string
	body        []byte
	cut         bool  // the body went on past the limit
	length      int64 // Content-Length when the server gave it, else -1
	// redirect is set when the server redirected to another host: the
	// fetch stopped there (Location, resolved).
	redirect *url.URL
}

// fetcher does the HTTP side of the tools.
type fetcher struct {
	client  *http.Client
	timeout time.Duration
}

func newFetcher(timeout time.Duration, guard guardFunc) *fetcher {
	dialer := &net.Dialer{Timeout: timeout, Control: dialControl(guard)}
	transport := &http.Transport{
		Proxy:                  nil, // a proxy would be dialled instead of the server: the guard would judge the proxy
		DialContext:            dialer.DialContext,
		TLSHandshakeTimeout:    timeout,
		ResponseHeaderTimeout:  timeout,
		MaxResponseHeaderBytes: maxHeaderBytes,
		ForceAttemptHTTP2:      true,
		// One GET now and then: no connection is kept (nor a goroutine
		// for it) between calls.
		DisableKeepAlives: true,
	}
	f := &fetcher{timeout: timeout}
	f.client = &http.Client{Transport: transport, Timeout: timeout, CheckRedirect: checkRedirect}
	return f
}

// checkRedirect follows a hop within the same host, at most maxRedirects
// of them, each URL checked as the first; a hop to another host stops
// the fetch with the redirect as its response.
func checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) > maxRedirects {
		return fmt.Errorf("more than %d redirects (last to %s)", maxRedirects, req.URL.Redacted())
	}
	if why := checkURL(req.URL); why != "" {
		return fmt.Errorf("redirect to %s refused: %s", req.URL.Redacted(), why)
	}
	if hostOf(req.URL) != hostOf(via[0].URL) {
		return http.ErrUseLastResponse
	}
	return nil
}

// get fetches u, reading at most maxBytes of the body.
func (f *fetcher) get(ctx context.Context, u *url.URL, maxBytes int64, accept string) (*response, error) {
	ctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("User-Agent", userAgent)
	req.Header.Set("Accept", accept)
	resp, err := f.client.Do(req)
	if err != nil {
		return nil, f.explain(err)
	}
	defer resp.Body.Close()
	out := &response{
		finalURL: resp.Request.URL, status: resp.StatusCode, statusText: http.StatusText(resp.StatusCode),
		contentType: resp.Header.Get("Content-Type"), length: resp.ContentLength,
	}
	if resp.StatusCode >= 300 && resp.StatusCode < 400 && hostOf(resp.Request.URL) != "" {
		if loc, err := resp.Location(); err == nil && hostOf(loc) != hostOf(resp.Request.URL) {
			out.redirect = loc
			return out, nil
		}
	}
	body, err := readBody(resp.Body, resp.ContentLength, maxBytes)
	if err != nil {
		return nil, fmt.Errorf("reading the body of %s after %d bytes: %w", out.finalURL.Redacted(), len(body), f.explain(err))
	}
	if int64(len(body)) > maxBytes {
		body, out.cut = body[:maxBytes], true
	}
	out.body = body
	return out, nil
}

// explain turns a timeout or a refusal into words the model can act on.
func (f *fetcher) explain(err error) error {
	if r, ok := isRefused(err); ok {
		return r
	}
	var ne net.Error
	if errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout() {
		return fmt.Errorf("timed out after %v (tools.web_fetch.timeout): %w", f.timeout, err)
	}
	return err
}

// readBody reads at most maxBytes+1 bytes of r (one more tells a longer
// body), into a buffer sized from the announced length when there is
// one, so a large page is not copied through doubling buffers.
func readBody(r io.Reader, length, maxBytes int64) ([]byte, error) {
	var buf bytes.Buffer
	if length > 0 {
		buf.Grow(int(min(length, maxBytes)+1) + bytes.MinRead) // ReadFrom wants MinRead free
	}
	_, err := buf.ReadFrom(io.LimitReader(r, maxBytes+1))
	return buf.Bytes(), err
}
