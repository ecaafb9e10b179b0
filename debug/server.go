package debug

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"
)

// DefaultAddr is where the standalone server listens when given no address.
const DefaultAddr = "127.0.0.1:7777"

// Listen opens a TCP listener for the debugger. An empty addr means
// DefaultAddr; an address without a host (":8080") binds 127.0.0.1, so the
// debugger is reachable from other machines only when a host such as
// 0.0.0.0 is given explicitly.
func Listen(addr string) (net.Listener, error) {
	if addr == "" {
		addr = DefaultAddr
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("debugger address %q: %w", addr, err)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(host, port))
	if err != nil {
		return nil, fmt.Errorf("debugger: %w", err)
	}
	return ln, nil
}

// ListenAndServe serves the session's debugger on addr (see Listen) until
// ctx ends:
//
//	go debug.ListenAndServe(ctx, "", sess) // http://127.0.0.1:7777/
func ListenAndServe(ctx context.Context, addr string, s *Session) error {
	return listenAndServe(ctx, addr, s.log, s.Token(), s.Handler())
}

// listenAndServe serves h on addr until ctx ends, after logging its URL
// (with the token, if any, in the fragment).
func listenAndServe(ctx context.Context, addr string, log *slog.Logger, token string, h http.Handler) error {
	ln, err := Listen(addr)
	if err != nil {
		return err
	}
	url := "http://" + ln.Addr().String() + "/"
	if token != "" {
		url += "#token=" + token
	}
	log.Info("arbor debugger", "url", url)
	return Serve(ctx, ln, h)
}

// Serve serves h on ln until ctx ends, then shuts down gracefully. When ln
// is on a loopback address, requests must name a loopback host (localhost,
// 127.0.0.1, [::1]): pages on other sites cannot reach the server through
// DNS rebinding.
func Serve(ctx context.Context, ln net.Listener, h http.Handler) error {
	if tcp, ok := ln.Addr().(*net.TCPAddr); ok && tcp.IP.IsLoopback() {
		h = loopbackOnly(h)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, ErrorLog: slog.NewLogLogger(slog.Default().Handler(), slog.LevelDebug)}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return fmt.Errorf("debugger: %w", err)
	case <-ctx.Done():
	}
	shut, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	// Event streams do not end by themselves: close them after a moment.
	if err := srv.Shutdown(shut); err != nil {
		if cerr := srv.Close(); cerr != nil {
			return fmt.Errorf("debugger: close: %w", cerr)
		}
	}
	if err := <-done; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("debugger: %w", err)
	}
	return nil
}

// loopbackOnly refuses requests whose Host is not a loopback name.
func loopbackOnly(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !isLoopbackHost(r.Host) {
			http.Error(w, "host not allowed: use localhost or 127.0.0.1", http.StatusForbidden)
			return
		}
		h.ServeHTTP(w, r)
	})
}

func isLoopbackHost(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") || strings.HasSuffix(strings.ToLower(host), ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
