package client_test

import (
	"context"
	"fmt"
	"log"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/disburse/disburse/client"
	"github.com/disburse/disburse/internal/payoutd"
	"github.com/disburse/disburse/payouts"
)

// The common journey: create a payee, save how to pay them, fund their wallet, pay them out, and
// list what happened. It runs against the real Payout Service, started in-process.
func Example() {
	svc := startExampleService()
	defer svc.stop()
	ctx := context.Background()

	c, err := client.New(svc.baseURL, client.WithCredentials(svc.creds.ClientID, svc.creds.APIKey))
	if err != nil {
		log.Fatal(err)
	}

	ada, err := c.CreateUser(ctx, payouts.CreateUserRequest{
		FirstName: "Ada", LastName: "Lovelace", Email: "ada@example.com",
		CountryCode: "1", PhoneNumber: "4155550100",
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("user:", ada.Name(), ada.Status)

	method, err := c.AddPayoutMethod(ctx, ada.ID, payouts.AddPayoutMethodRequest{
		Platform: payouts.PlatformPayPal, Email: "ada@example.com", IsDefault: true,
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("payout method:", method.Platform.Label(), method.Email)

	// Fund: the app's bank refills its wallet, then the app moves $25 to Ada (a negative amount
	// goes from the app to the user). Both carry an idempotency key the client makes, so they
	// are retried safely if an answer is lost.
	if _, err := c.Deposit(ctx, svc.creds.AppID, payouts.DepositRequest{Amount: 100_00}); err != nil {
		log.Fatal(err)
	}
	if _, err := c.CreateTransfer(ctx, payouts.CreateTransferRequest{UserID: ada.ID, Amount: -25_00}); err != nil {
		log.Fatal(err)
	}

	// Pay $20 of it out to Ada's default method. The payout reserves the money while the rail
	// settles it.
	payout, err := c.CreatePayout(ctx, payouts.CreatePayoutRequest{
		UserID: ada.ID, Amount: 20_00, Platform: payouts.PlatformDefault,
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("payout:", payout.Amount, "to", payout.ExternalData.Platform, payout.Status)

	// Every transfer of Ada's, newest first, page after page.
	for tr, err := range c.AllTransfers(ctx, payouts.TransferFilter{UserID: ada.ID}) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println("transfer:", tr.Type, tr.Amount, tr.Status)
	}
	ada, err = c.GetUser(ctx, ada.ID)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("wallet:", ada.Wallet.Amount, "of which withdrawable:", ada.Wallet.WithdrawableAmount)

	// An error answer is a *payouts.Error with the status, the code and a message.
	_, err = c.CreateTransfer(ctx, payouts.CreateTransferRequest{UserID: ada.ID, Amount: -1_000_00})
	fmt.Println("overdraw:", payouts.ErrorCode(err))

	// Output:
	// user: Ada Lovelace unverified
	// payout method: PayPal ada@example.com
	// payout: $20.00 to paypal pending
	// transfer: payout $20.00 pending
	// transfer: balance -$25.00 completed
	// wallet: $25.00 of which withdrawable: $5.00
	// overdraw: transaction-insufficient-funds
}

// exampleService is the Payout Service as payoutd runs it, on a throwaway SQLite database,
// without its background worker so that payouts stay pending and the output does not depend on
// timing. Examples get no *testing.T, which servicetest needs, so the example starts it directly.
type exampleService struct {
	baseURL string
	creds   payouts.Credentials
	stop    func()
}

func startExampleService() *exampleService {
	dir, err := os.MkdirTemp("", "disburse-example-")
	if err != nil {
		log.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	srv, err := payoutd.New(ctx, payoutd.Config{Addr: ln.Addr().String(),
		DB: filepath.Join(dir, "disburse.db"), WorkerInterval: -1},
		slog.New(slog.DiscardHandler))
	if err != nil {
		log.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ctx, ln) }()
	creds, err := srv.CreateApp(ctx, "Example")
	if err != nil {
		log.Fatal(err)
	}
	return &exampleService{
		baseURL: "http://" + ln.Addr().String() + "/api",
		creds:   creds,
		stop: func() {
			cancel()
			if err := <-served; err != nil {
				log.Print(err)
			}
			srv.Close()
			os.RemoveAll(dir)
		},
	}
}

// readmeExample is the snippet of README.md's "Use the Go client": being here, it compiles, and
// TestReadmeExample fails when the two drift apart. It is never run (it names a fixed address).
var _ = readmeExample

func readmeExample(ctx context.Context, clientID, apiKey string) error {
	c, err := client.New("http://127.0.0.1:8081/api", client.WithCredentials(clientID, apiKey))
	if err != nil {
		return err
	}
	ada, err := c.CreateUser(ctx, payouts.CreateUserRequest{FirstName: "Ada", LastName: "Lovelace",
		Email: "ada@example.com", CountryCode: "1", PhoneNumber: "4155550100"})
	if err != nil {
		return fmt.Errorf("create user: %s: %w", payouts.ErrorCode(err), err)
	}
	_, err = c.CreateTransfer(ctx, payouts.CreateTransferRequest{UserID: ada.ID, Amount: -25_00})
	return err
}

func TestReadmeExample(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "## Use the Go client")
	_, block, ok2 := strings.Cut(section, "```go\n")
	snippet, _, ok3 := strings.Cut(block, "```")
	if !ok || !ok2 || !ok3 {
		t.Fatal("README.md has no Go block under \"## Use the Go client\"")
	}
	source, err := os.ReadFile("example_test.go")
	if err != nil {
		t.Fatal(err)
	}
	// The function body is the snippet indented by one tab.
	indented := "\t" + strings.ReplaceAll(strings.TrimSuffix(snippet, "\n"), "\n", "\n\t") + "\n"
	if !strings.Contains(string(source), indented) {
		t.Errorf("README.md's client snippet is not the body of readmeExample in example_test.go:\n%s", snippet)
	}
}
