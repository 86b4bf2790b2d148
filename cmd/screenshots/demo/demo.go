// Package demo runs the whole product in-process, the Payout Service and the dashboard on a
// temporary SQLite, filled with a small realistic data set, and lists its page types. The
// accessibility browser test and the screenshot program (go run ./cmd/screenshots) both walk
// Pages, so a new page type is one line there.
package demo

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/disburse/disburse/client"
	"github.com/disburse/disburse/handlers"
	"github.com/disburse/disburse/internal/dashstore"
	"github.com/disburse/disburse/internal/payoutd"
	"github.com/disburse/disburse/web"
)

// Admin signs in to the demo dashboard.
const (
	AdminEmail    = "ines.garcia@example.com"
	AdminPassword = "demo password, not a secret"
)

// cheap argon2id costs keep signing in quick; the checks are the production ones.
var password = web.PasswordParams{Memory: 1024, Time: 1, Threads: 1}

// Demo is a running dashboard and service with seeded data.
type Demo struct {
	URL    string // the dashboard, http://127.0.0.1:PORT
	Hosted string // the service's origin: hosted payee pages
	API    *client.Client
	AppID  string
	Store  *dashstore.Store
	Seeded Seeded

	stop func()
}

// Start starts the service and the dashboard on databases in dir, seeds them and returns when
// both answer. Close stops them.
func Start(ctx context.Context, dir string, log *slog.Logger) (d *Demo, err error) {
	var stops []func()
	d = &Demo{stop: func() {
		for i := len(stops) - 1; i >= 0; i-- {
			stops[i]()
		}
	}}
	defer func() {
		if err != nil {
			d.Close()
		}
	}()
	serveCtx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	serve := func(fn func(context.Context) error) {
		wg.Go(func() {
			if err := fn(serveCtx); err != nil {
				log.Error("demo: serve", "err", err)
			}
		})
	}
	stops = append(stops, func() { cancel(); wg.Wait() })

	svcLn, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return d, err
	}
	dashLn, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		svcLn.Close()
		return d, err
	}
	d.Hosted, d.URL = "http://"+svcLn.Addr().String(), "http://"+dashLn.Addr().String()

	svc, err := payoutd.New(ctx, payoutd.Config{Addr: svcLn.Addr().String(), DB: filepath.Join(dir, "disburse.db"),
		PublicURL: d.Hosted, FrameAncestors: []string{d.URL}, EncryptionKey: make([]byte, payoutd.KeySize)},
		log.With("component", "payoutd"))
	if err != nil {
		svcLn.Close()
		dashLn.Close()
		return d, fmt.Errorf("payout service: %w", err)
	}
	stops = append(stops, func() { svc.Close() })
	serve(func(ctx context.Context) error { return svc.Serve(ctx, svcLn) })
	creds, err := svc.CreateApp(ctx, "Acme Deliveries")
	if err != nil {
		dashLn.Close()
		return d, err
	}
	d.AppID = creds.AppID
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 8}}
	stops = append(stops, hc.CloseIdleConnections)
	if d.API, err = client.New(d.Hosted+"/api", client.WithCredentials(creds.ClientID, creds.APIKey), client.WithHTTPClient(hc)); err != nil {
		dashLn.Close()
		return d, err
	}

	if d.Store, err = dashstore.Open(ctx, filepath.Join(dir, "dashboard.db")); err != nil {
		dashLn.Close()
		return d, err
	}
	stops = append(stops, func() { d.Store.Close() })
	srv, err := web.New(web.Config{Store: d.Store, Logger: log, Now: time.Now, Password: password, Nav: handlers.Nav,
		FrameSources: []string{d.Hosted}})
	if err != nil {
		dashLn.Close()
		return d, err
	}
	if _, err := handlers.Register(handlers.Config{Web: srv, Store: d.Store, Payouts: d.API, AppID: d.AppID,
		Now: time.Now, Password: password, Logger: log, Approvals: dashstore.DefaultApprovalPolicy()}); err != nil {
		dashLn.Close()
		return d, err
	}
	serve(func(ctx context.Context) error { return srv.Serve(ctx, dashLn) })

	if d.Seeded, err = seed(ctx, d.API, d.AppID, d.Store, d.Hosted); err != nil {
		return d, fmt.Errorf("seed: %w", err)
	}
	return d, nil
}

// Close stops the dashboard and the service.
func (d *Demo) Close() { d.stop() }

// addOperator adds an operator who signs in with AdminPassword.
func addOperator(ctx context.Context, store *dashstore.Store, name, email string, role dashstore.Role) (dashstore.Operator, error) {
	hash, err := web.HashPassword(AdminPassword, password)
	if err != nil {
		return dashstore.Operator{}, err
	}
	op := dashstore.Operator{Email: email, Name: name, Role: role, PasswordHash: hash}
	err = store.CreateOperator(ctx, &op, time.Now())
	return op, err
}

// check joins the errors of a seeding step, naming it.
func check(what string, errs ...error) error {
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

// slug makes an email's local part from a name with accents: "Zoë Ångström" -> "zoe.angstrom".
func slug(first, last string) string {
	r := strings.NewReplacer("á", "a", "à", "a", "ä", "a", "å", "a", "ã", "a", "é", "e", "è", "e", "ë", "e",
		"í", "i", "ï", "i", "ó", "o", "ö", "o", "ø", "o", "ú", "u", "ü", "u", "ñ", "n", "ç", "c", "ß", "ss",
		"'", "", " ", "")
	return r.Replace(strings.ToLower(first)) + "." + r.Replace(strings.ToLower(last))
}
