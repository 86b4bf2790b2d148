// Package handlers holds the operator dashboard's pages and actions, one file per noun. Each
// handler decodes the request, calls the Payout Service (through the HTTP client, behind the
// Payouts interface declared here) or the dashboard's own store, and renders the answer. The
// routes, with the permission each needs, are listed in routes.go.
package handlers

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/disburse/disburse/internal/dashstore"
	"github.com/disburse/disburse/payouts"
	"github.com/disburse/disburse/views/components"
	"github.com/disburse/disburse/web"
)

// Store is what the handlers need of the dashboard's own database (dashstore.Store).
type Store interface {
	CreateOperator(ctx context.Context, op *dashstore.Operator, now time.Time) error
	Operator(ctx context.Context, id string) (dashstore.Operator, error)
	Operators(ctx context.Context) ([]dashstore.Operator, error)
	UpdateOperator(ctx context.Context, id string, upd dashstore.OperatorUpdate, now time.Time) (dashstore.Operator, error)
	SetOperatorTimeZone(ctx context.Context, id, zone string, now time.Time) error
	AddAudit(ctx context.Context, e *dashstore.AuditEntry) error
	AuditLog(ctx context.Context, f dashstore.AuditFilter) ([]dashstore.AuditEntry, bool, error)
	bulkStore
	payeeStore

	CreateApproval(ctx context.Context, a *dashstore.Approval, now time.Time) (bool, error)
	Approval(ctx context.Context, id string) (dashstore.Approval, error)
	Approvals(ctx context.Context, f dashstore.ApprovalFilter) ([]dashstore.Approval, bool, error)
	CountOpenApprovals(ctx context.Context) (int, error)
	CountFailedApprovals(ctx context.Context, appID, kind string, since time.Time) (int, error)
	StartApproval(ctx context.Context, id string, checker dashstore.Operator, now time.Time) (dashstore.Approval, bool, error)
	FinishApproval(ctx context.Context, id string, status dashstore.ApprovalStatus, resultID, reason string, now time.Time) (dashstore.Approval, error)
	RejectApproval(ctx context.Context, id string, checker dashstore.Operator, reason string, now time.Time) (dashstore.Approval, bool, error)
	AdmitOutflows(ctx context.Context, p dashstore.ApprovalPolicy, flows []dashstore.Outflow, record map[string]dashstore.PayeeRecord,
		now time.Time) ([]string, []dashstore.HoldReason, error)
	RecordOutflows(ctx context.Context, flows []dashstore.Outflow, now time.Time) ([]string, error)
	SettleSent(ctx context.Context, attempt, resultID string) error
	SettleRefused(ctx context.Context, attempts ...string) error
}

// Config is what the handlers are built from.
type Config struct {
	Web     *web.Server
	Store   Store
	Payouts Payouts
	// AppID is the app whose wallet the app page shows; empty when the dashboard does not know
	// it (a service configured by hand), and the app page says so.
	AppID string
	// APIURL and ClientID are the service's API base URL and the app's client id, which the
	// Developers page shows for calling the API.
	APIURL, ClientID string
	Now              func() time.Time
	Password         web.PasswordParams // costs of the password hashes the handlers make
	Logger           *slog.Logger
	// Approvals holds payouts above a threshold, or past a limit of a window per payee or per
	// operator, for a second operator; the zero value holds none.
	Approvals dashstore.ApprovalPolicy
	// BulkBatchWait bounds how long a bulk job waits for one of its transfer batches to finish
	// (default DefaultBulkBatchWait); its rows are then left unsettled, to be checked again.
	// BulkPoll is how often the job asks (default 300ms).
	BulkBatchWait, BulkPoll time.Duration
	// BulkLease is how long a running bulk job stays this process's once it stops renewing its
	// hold (every third of it): past it, another process takes the job over (default
	// DefaultBulkLease). Instance names this process in the leases it holds (default its host
	// name, process id and a random suffix).
	BulkLease time.Duration
	Instance  string
	// BulkRepeatWindow is how far back a bulk file's rows are compared with earlier files' rows:
	// a row that pays what a row of a file uploaded within it, or earlier the same UTC day, paid
	// waits for a second operator (default DefaultBulkRepeatWindow; dashstore.BulkRepeats).
	BulkRepeatWindow time.Duration
}

// DefaultBulkRepeatWindow is how far back bulk rows are compared when not told; the dashboard's
// flag takes its default from it.
const DefaultBulkRepeatWindow = 30 * 24 * time.Hour

// DefaultBulkLease is how long a bulk job's lease runs when not told; the dashboard's flag takes
// its default from it.
const DefaultBulkLease = 30 * time.Second

// DefaultBulkBatchWait is how long a bulk job waits for a transfer batch when not told; the
// dashboard's flag takes its default from it.
const DefaultBulkBatchWait = 10 * time.Minute

// Handlers serves the dashboard's pages.
type Handlers struct {
	web      *web.Server
	store    Store
	payouts  Payouts
	appID    string
	apiURL   string
	clientID string
	now      func() time.Time
	password web.PasswordParams
	log      *slog.Logger

	instance  string // names this process in the bulk jobs' leases
	bulkLease time.Duration
	bulkWait  time.Duration
	bulkPoll  time.Duration
	// bulkRepeatWindow is how far back a bulk file's rows are compared with earlier files'.
	bulkRepeatWindow time.Duration
	policy           dashstore.ApprovalPolicy
	kinds            map[string]approvalKind // what an approval can hold (approvalKinds)
	// pagePerms is the permission each page's route needs, by its path, for links to it.
	pagePerms map[string]web.Permission
	// payeeMu keeps this process to one reading of the users into the payee index at a time.
	payeeMu sync.Mutex
}

// Register adds every route of routes.go to cfg.Web and returns the handlers, whose
// TakeOverBulkJobs the caller runs for as long as it serves.
func Register(cfg Config) (*Handlers, error) {
	if cfg.Web == nil || cfg.Store == nil || cfg.Payouts == nil {
		return nil, errors.New("handlers: Web, Store and Payouts are required")
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Password == (web.PasswordParams{}) {
		cfg.Password = web.DefaultPasswordParams
	}
	if cfg.BulkBatchWait <= 0 {
		cfg.BulkBatchWait = DefaultBulkBatchWait
	}
	if cfg.BulkPoll <= 0 {
		cfg.BulkPoll = 300 * time.Millisecond
	}
	if cfg.BulkLease <= 0 {
		cfg.BulkLease = DefaultBulkLease
	}
	if cfg.BulkRepeatWindow <= 0 {
		cfg.BulkRepeatWindow = DefaultBulkRepeatWindow
	}
	if cfg.Instance == "" {
		host, _ := os.Hostname()
		cfg.Instance = fmt.Sprintf("%s/%d/%s", host, os.Getpid(), rand.Text()[:8])
	}
	h := &Handlers{web: cfg.Web, store: cfg.Store, payouts: cfg.Payouts, appID: cfg.AppID, apiURL: cfg.APIURL, clientID: cfg.ClientID, now: cfg.Now,
		password: cfg.Password, log: cfg.Logger, policy: cfg.Approvals, bulkWait: cfg.BulkBatchWait, bulkPoll: cfg.BulkPoll,
		bulkLease: cfg.BulkLease, instance: cfg.Instance, bulkRepeatWindow: cfg.BulkRepeatWindow}
	h.kinds = h.approvalKinds()
	routes := h.routes()
	h.pagePerms = map[string]web.Permission{}
	for _, r := range routes {
		if r.Method == fiber.MethodGet {
			h.pagePerms[r.Path] = r.Perm
		}
	}
	return h, cfg.Web.Register(routes)
}

// formOf reads the named fields of the submitted form.
func formOf(c *fiber.Ctx, names ...string) components.Form {
	f := components.Form{Values: make(map[string]string, len(names))}
	for _, n := range names {
		f.Values[n] = c.FormValue(n)
	}
	return f
}

// formFailed reports whether err is a problem the operator can fix in the form, and puts it on
// the form: per-field problems on their fields, a failure of no field above the form. Other
// errors (not found, the service down, a bug) go to the error page instead.
func formFailed(err error, f *components.Form) bool {
	var e *payouts.Error
	if !errors.As(err, &e) || e.Code == payouts.ENotFound || web.StatusOf(err) >= 500 {
		return false
	}
	f.Errors = map[string]string{}
	for field, problem := range e.Fields {
		f.Errors[field] = problem
	}
	// The message of a field error only repeats its problems, which the fields show.
	switch len(e.Fields) {
	case 0:
		f.Message = e.Message
	case 1:
	default:
		f.Message = "Some fields need attention."
	}
	return true
}

// problemsFound reports whether the dashboard found problems with the form itself (an amount or
// metadata it could not read), and adds those the request's own Validate finds, so that one
// submit names every problem rather than the first. The request is not sent then.
func problemsFound(form *components.Form, validate func() error) bool {
	if len(form.Errors) == 0 {
		return false
	}
	var e *payouts.Error
	if errors.As(validate(), &e) {
		for field, problem := range e.Fields {
			addProblem(form, field, problem)
		}
	}
	if len(form.Errors) > 1 {
		form.Message = "Some fields need attention."
	}
	return true
}

// addProblem records a problem with a field, unless it already has one.
func addProblem(form *components.Form, field, problem string) {
	if form.Errors == nil {
		form.Errors = map[string]string{}
	}
	if _, ok := form.Errors[field]; !ok {
		form.Errors[field] = problem
	}
}

// operatorOf returns the signed-in operator; routes that need one are only reached with one.
func (h *Handlers) operatorOf(c *fiber.Ctx) dashstore.Operator {
	op, _ := h.web.CurrentOperator(c)
	if op == nil {
		return dashstore.Operator{}
	}
	return *op
}

// can reports whether the signed-in operator may do what p allows, to show or hide controls.
func (h *Handlers) can(c *fiber.Ctx, p web.Permission) bool {
	op, _ := h.web.CurrentOperator(c)
	return op != nil && web.Can(op.Role, p)
}
