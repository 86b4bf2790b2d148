package handlers

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/disburse/disburse/internal/dashstore"
)

// TestBulkPropsWhileARunEnds asks for a job's page while its run is ending: the page must see
// the job either running or done, never "cut off by a restart", which stops the page's polling
// and offers to resume a job that finished. The page used to read the job (running) and then
// ask whether it was running here, an answer that waited for the run to end: false.
func TestBulkPropsWhileARunEnds(t *testing.T) {
	ctx := context.Background()
	store, err := dashstore.Open(ctx, filepath.Join(t.TempDir(), "dashboard.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	now := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	job := dashstore.BulkJob{AppID: "app1", FileHash: "abc", FileName: "march.csv", OperatorID: "op1",
		Status: dashstore.BulkRunning, Created: now}
	if _, err := store.CreateBulkJob(ctx, &job, nil); err != nil {
		t.Fatal(err)
	}
	h := &Handlers{store: store, appID: "app1"}
	if started, err := h.bulkRuns.start(job.ID, func() error { return nil }); err != nil || !started {
		t.Fatalf("start = %v, %v", started, err)
	}

	marking, proceed := make(chan struct{}), make(chan struct{})
	finished := make(chan error, 1)
	go func() {
		finished <- h.bulkRuns.finish(job.ID, func() error {
			close(marking)
			<-proceed
			return store.SetBulkStatus(ctx, job.ID, dashstore.BulkDone, now)
		})
	}()
	<-marking // the run is ending: its status is being written
	asked := make(chan error, 1)
	var props struct {
		stalled bool
		status  dashstore.BulkStatus
	}
	go func() {
		p, err := h.bulkProps(ctx, job.ID)
		props.stalled, props.status = p.Stalled, p.Job.Status
		asked <- err
	}()
	time.Sleep(50 * time.Millisecond) // time for the page to read what it reads before it waits
	close(proceed)
	if err := <-finished; err != nil {
		t.Fatal(err)
	}
	if err := <-asked; err != nil {
		t.Fatal(err)
	}
	if props.stalled {
		t.Errorf("the page took the job (status %s) for cut off while its run was ending", props.status)
	}
}
