// Package metrics is the Prometheus instrumentation of both programs, served with pprof on a
// separate, internal listen address (--metrics-addr), never on the public one. Each process has
// its own registry, passed down from cmd/*: nothing is registered globally.
package metrics

import (
	"context"
	"net"
	"net/http"
	"net/http/pprof"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/disburse/disburse/internal/httpserve"
)

// Metrics is one process's registry and the series the programs report.
type Metrics struct {
	reg           *prometheus.Registry
	requests      *prometheus.HistogramVec
	loginFailures prometheus.Counter
	ledgerCommits prometheus.Counter

	ledgerViolations  prometheus.Gauge
	ledgerLastChecked prometheus.Gauge
}

// New returns a registry with the Go runtime and process collectors and disburse's series.
func New() *Metrics {
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		requests: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "disburse_http_request_duration_seconds",
			Help:    "Time to answer an HTTP request, by server, method, route pattern and status.",
			Buckets: prometheus.DefBuckets,
		}, []string{"server", "method", "route", "status"}),
		loginFailures: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "disburse_dashboard_login_failures_total",
			Help: "Failed dashboard sign-ins (wrong email or password).",
		}),
		ledgerCommits: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "disburse_ledger_commits_total",
			Help: "Committed write transactions that moved money (inserted or changed a posting).",
		}),
		ledgerViolations: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "disburse_ledger_check_violations",
			Help: "Ledgers (apps and organizations) whose invariants the last periodic check found broken.",
		}),
		ledgerLastChecked: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "disburse_ledger_check_last_success_timestamp_seconds",
			Help: "Unix time the periodic ledger check last read every ledger to the end, whatever it found.",
		}),
	}
	m.reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		m.requests, m.loginFailures, m.ledgerCommits, m.ledgerViolations, m.ledgerLastChecked)
	return m
}

// Requests returns the observer of one server's requests (payoutd, dashboard), for
// httpserve.Observe.
func (m *Metrics) Requests(server string) *Requests {
	return &Requests{hist: m.requests.MustCurryWith(prometheus.Labels{"server": server}), m: m}
}

// Requests observes the requests of one server.
type Requests struct {
	hist prometheus.ObserverVec
	m    *Metrics
}

var _ httpserve.RequestObserver = (*Requests)(nil)

// ObserveRequest records one answered request.
func (r *Requests) ObserveRequest(method, route string, status int, took time.Duration) {
	r.hist.WithLabelValues(method, route, strconv.Itoa(status)).Observe(took.Seconds())
}

// LoginFailed counts a failed dashboard sign-in.
func (r *Requests) LoginFailed() { r.m.loginFailures.Inc() }

// LedgerCommitted counts a committed money movement.
func (m *Metrics) LedgerCommitted() { m.ledgerCommits.Inc() }

// LedgerChecked records a periodic ledger check that read every ledger at at and found
// violations broken ones.
func (m *Metrics) LedgerChecked(violations int, at time.Time) {
	m.ledgerViolations.Set(float64(violations))
	m.ledgerLastChecked.Set(float64(at.UnixNano()) / 1e9)
}

// Backlog is what the payout worker has yet to do: the settle time of the oldest payout already
// due (zero when none is), the number of payout links waiting to be delivered, and the payouts
// whose rail outcome waits for an operator.
type Backlog func(ctx context.Context) (oldestDue time.Time, deliveries, needsOperator int, err error)

// WatchWorker adds the worker lag gauges, read from backlog at every scrape.
func (m *Metrics) WatchWorker(backlog Backlog, now func() time.Time) {
	m.reg.MustRegister(&workerCollector{backlog: backlog, now: now})
}

var (
	oldestDueDesc = prometheus.NewDesc("disburse_worker_oldest_due_payout_seconds",
		"Age of the oldest pending payout whose settle time has passed; 0 when none is waiting.", nil, nil)
	deliveryBacklogDesc = prometheus.NewDesc("disburse_worker_delivery_backlog",
		"Payout links waiting to be delivered.", nil, nil)
	needsOperatorDesc = prometheus.NewDesc("disburse_worker_payouts_needing_operator",
		"Pending payouts whose rail could not learn their outcome by reading the provider: the worker no longer "+
			"moves them; alert when above 0.", nil, nil)
)

type workerCollector struct {
	backlog Backlog
	now     func() time.Time
}

func (w *workerCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- oldestDueDesc
	ch <- deliveryBacklogDesc
	ch <- needsOperatorDesc
}

func (w *workerCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	oldest, deliveries, needsOperator, err := w.backlog(ctx)
	if err != nil {
		ch <- prometheus.NewInvalidMetric(oldestDueDesc, err)
		return
	}
	age := 0.0
	if !oldest.IsZero() {
		age = max(w.now().Sub(oldest).Seconds(), 0)
	}
	ch <- prometheus.MustNewConstMetric(oldestDueDesc, prometheus.GaugeValue, age)
	ch <- prometheus.MustNewConstMetric(deliveryBacklogDesc, prometheus.GaugeValue, float64(deliveries))
	ch <- prometheus.MustNewConstMetric(needsOperatorDesc, prometheus.GaugeValue, float64(needsOperator))
}

// Handler serves /metrics and pprof's /debug/pprof/: mount it only on an internal address.
func (m *Metrics) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{}))
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	return mux
}

// Start listens on addr and serves Handler there until stop is called, which waits for the
// server to end. It returns the address it listens on.
func (m *Metrics) Start(addr string) (bound net.Addr, stop func(), err error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, nil, err
	}
	srv := &http.Server{Handler: m.Handler(), ReadHeaderTimeout: 10 * time.Second}
	done := make(chan struct{})
	go func() { defer close(done); srv.Serve(ln) }()
	return ln.Addr(), func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
		<-done
	}, nil
}
