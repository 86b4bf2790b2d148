package faulttest

import (
	"context"
	"testing"
	"time"

	"github.com/disburse/disburse/client"
)

// TestBankUnderKills moves money between an app and its users from 16 clients while the
// payoutd process is SIGKILLed and restarted, then checks that nothing acknowledged was lost or
// doubled and that the money adds up.
func TestBankUnderKills(t *testing.T) {
	for _, engine := range engines {
		t.Run(engine, func(t *testing.T) {
			d := newDaemon(t, database(t, engine), 150*time.Millisecond)
			creds := d.createApp("Bank")
			d.mustStart()
			c := d.client(creds)
			b := newBank(t, creds, []*client.Client{c}, 8)

			start := time.Now()
			ctx, stop := context.WithCancel(context.Background())
			killed := make(chan struct{})
			go func() {
				defer close(killed)
				d.killer(ctx, 250*time.Millisecond, 6)
			}()
			b.run(context.Background(), 16, 40, 1, killed)
			stop()
			<-killed
			kills := d.kills
			if kills < 2 {
				t.Errorf("payoutd was killed %d times during the load; the load ended too soon to prove anything", kills)
			}
			b.verify(c)
			d.kill()
			checkLedger(t, d.db, creds.AppID)
			b.report(kills, d.starts-1)
			t.Logf("%s: %s", engine, time.Since(start).Round(time.Millisecond))
		})
	}
}
