package service_test

import (
	"fmt"
	"testing"

	"github.com/disburse/disburse/payouts"
)

// BenchmarkCreateTransfer moves money from the app to a user and back, one balance transfer per
// operation, on a file-backed SQLite store: the cost of one ledger write path round trip
// (idempotency off, guard, two account updates, posting, transfer and event rows, commit).
//
//	go test ./service -run '^$' -bench CreateTransfer -benchtime 2000x
func BenchmarkCreateTransfer(b *testing.B) {
	e := newEnv(b, 1_000_000_000)
	users := make([]string, 16)
	for i := range users {
		users[i] = e.newUser(b, fmt.Sprintf("bench%d@example.com", i), fmt.Sprintf("55501%02d", i)).ID
	}
	b.Run("serial", func(b *testing.B) {
		i := 0
		for b.Loop() {
			amount := int64(-100)
			if i%2 == 1 {
				amount = 100
			}
			if _, err := e.svc.CreateTransfer(e.ctx, e.app, payouts.CreateTransferRequest{UserID: users[0], Amount: amount}); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})
	b.Run("parallel", func(b *testing.B) {
		b.SetParallelism(4)
		next := make(chan int, 1)
		next <- 0
		b.RunParallel(func(pb *testing.PB) {
			n := <-next
			next <- n + 1
			user := users[n%len(users)]
			i := 0
			for pb.Next() {
				amount := int64(-100)
				if i%2 == 1 {
					amount = 100
				}
				if _, err := e.svc.CreateTransfer(e.ctx, e.app, payouts.CreateTransferRequest{UserID: user, Amount: amount}); err != nil {
					b.Error(err)
					return
				}
				i++
			}
		})
	})
}
