package handlers_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/disburse/disburse/internal/dashstore"
	"github.com/disburse/disburse/payouts"
	"github.com/disburse/disburse/views/paths"
)

// upload posts file as the bulk payout form does, multipart with the agent's CSRF token.
func (a *agent) upload(path, name string, file []byte) response {
	a.h.t.Helper()
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	if err := w.WriteField("_csrf", a.csrf); err != nil {
		a.h.t.Fatal(err)
	}
	part, err := w.CreateFormFile("file", name)
	if err != nil {
		a.h.t.Fatal(err)
	}
	part.Write(file)
	w.Close()
	req := httptest.NewRequest(http.MethodPost, path, &body)
	req.Header.Set("Content-Type", w.FormDataContentType())
	return a.do(req)
}

var bulkIDPattern = regexp.MustCompile(`^/bulk/([0-9a-f-]{36})$`)

// uploadBulk uploads file and returns the id of the job it opened.
func (a *agent) uploadBulk(file string) string {
	a.h.t.Helper()
	res := a.upload("/bulk", "payouts.csv", []byte(file))
	wantRedirect(a.h.t, res, "/bulk/")
	m := bulkIDPattern.FindStringSubmatch(res.Header.Get("Location"))
	if m == nil {
		a.h.t.Fatalf("upload redirected to %q", res.Header.Get("Location"))
	}
	return m[1]
}

// waitBulk polls a confirmed job's progress, as its page does, until the job is done.
func (a *agent) waitBulk(id string) response {
	a.h.t.Helper()
	for range 6000 {
		res := a.htmxGet("/bulk/" + id + "/progress")
		if strings.Contains(res.body, `data-status="done"`) {
			if strings.Contains(res.body, "hx-trigger") {
				a.h.t.Errorf("a done job's progress still polls")
			}
			return res
		}
		time.Sleep(20 * time.Millisecond)
	}
	a.h.t.Fatalf("bulk job %s never finished", id)
	return response{}
}

// resultRows reads a job's result CSV, without its byte-order mark and header.
func (a *agent) resultRows(id string) [][]string {
	a.h.t.Helper()
	res := a.get("/bulk/" + id + "/result.csv")
	wantStatus(a.h.t, res, http.StatusOK)
	body, ok := strings.CutPrefix(res.body, "\ufeff")
	if !ok {
		a.h.t.Error("the result CSV has no byte-order mark")
	}
	rows, err := csv.NewReader(strings.NewReader(body)).ReadAll()
	if err != nil {
		a.h.t.Fatal(err)
	}
	if strings.Join(rows[0], ",") != "row,user,amount,outcome,transfer_id,error,time_zone" {
		a.h.t.Errorf("header %v", rows[0])
	}
	return rows[1:]
}

func (h *harness) walletOf(userID string) payouts.Money {
	h.t.Helper()
	u, err := h.payouts.GetUser(context.Background(), userID)
	if err != nil {
		h.t.Fatal(err)
	}
	return u.Wallet.Amount
}

func TestBulkPayoutValidatesPaysAndPaysOnce(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	ada, bob := h.createUser("Ada", "Lovelace"), h.createUser("Bobby", "Byte")
	if _, err := h.payouts.AddPayoutMethod(context.Background(), ada.ID, payouts.AddPayoutMethodRequest{
		Platform: payouts.PlatformPayPal, Email: ada.Email, IsDefault: true}); err != nil {
		t.Fatal(err)
	}
	gone := h.createUser("Gone", "Away")
	if _, err := h.payouts.DeleteUser(context.Background(), gone.ID); err != nil {
		t.Fatal(err)
	}
	h.deposit(1_000_00)
	a, _ := h.signedIn(dashstore.RoleOperations)
	file := "user,amount,memo,method\n" +
		ada.Email + ",10.00,June,\n" + // 1: to Ada's wallet
		strings.ToUpper(bob.Email) + ",$1.50,June,wallet\n" + // 2: by email in any case
		ada.ID + ",2.00,June,paypal\n" + // 3: a payout to Ada's PayPal
		"nobody@example.com,1.00,,\n" + // 4: unknown email
		bob.ID + ",1.00,,paypal\n" + // 5: Bob has no PayPal
		ada.Email + ",10.00,June,\n" + // 6: repeats row 1
		ada.Email + ",ten,,\n" + // 7: bad amount
		ada.Email + ",1.00,,pigeon\n" + // 8: unknown method
		gone.ID + ",1.00,,\n" // 9: deleted user
	id := a.uploadBulk(file)
	page := a.get("/bulk/" + id)
	wantStatus(t, page, http.StatusOK)
	wantBody(t, page, `data-testid="bulk-rows">9<`, `data-testid="bulk-good">3<`, `data-testid="bulk-bad">6<`, "$13.50", "Rows paid out to a saved method: 1.",
		"No user nobody@example.com.", "The user has no paypal payout method saved.", "Repeats row 1",
		"Column amount: “ten” cannot be read", "Unknown method “pigeon”", "No user "+gone.ID+".")
	if got := len(regexp.MustCompile(`data-testid="bulk-problem"`).FindAllString(page.body, -1)); got != 6 {
		t.Errorf("%d problem rows shown, want 6", got)
	}
	if got := h.auditActions("bulk", id); len(got) != 1 || got[0].Action != "bulk.upload" {
		t.Errorf("audit %+v, want the upload", got)
	}

	wantRedirect(t, a.post("/bulk/"+id+"/confirm", nil), "/bulk/"+id)
	// The PayPal row is sent, and paid once its payout settles.
	wantBody(t, a.waitBulk(id), "0 failed", "6 skipped")
	h.settlePayouts()
	wantBody(t, a.get("/bulk/"+id), "3 paid", "0 sent", "0 failed", "6 skipped")
	adaAfter, bobAfter := h.walletOf(ada.ID), h.walletOf(bob.ID)
	if bobAfter != 1_50 {
		t.Errorf("Bob's wallet %v, want $1.50", bobAfter)
	}
	rows := a.resultRows(id)
	if len(rows) != 9 || rows[0][3] != "paid" || rows[0][4] == "" || rows[3][3] != "skipped" || rows[3][5] != "No user nobody@example.com." {
		t.Errorf("result rows %v", rows)
	}

	// The same file again opens the same job; confirming it again, even after its outcomes were
	// lost as in a crash, sends the same idempotency keys and moves no money.
	if again := a.uploadBulk(file); again != id {
		t.Fatalf("the same file opened job %s, want %s", again, id)
	}
	lost := make([]dashstore.BulkRow, 9)
	for i := range lost {
		lost[i].Row = i + 1
	}
	if err := h.store.SetBulkOutcomes(context.Background(), id, lost); err != nil {
		t.Fatal(err)
	}
	wantRedirect(t, a.post("/bulk/"+id+"/confirm", nil), "/bulk/"+id)
	a.waitBulk(id)
	if ada2, bob2 := h.walletOf(ada.ID), h.walletOf(bob.ID); ada2 != adaAfter || bob2 != bobAfter {
		t.Errorf("wallets moved again: Ada %v -> %v, Bob %v -> %v", adaAfter, ada2, bobAfter, bob2)
	}
	if again := a.resultRows(id); again[0][4] != rows[0][4] || again[2][4] != rows[2][4] {
		t.Errorf("second run made other transfers: %v, then %v", rows, again)
	}
	var actions []string
	for _, e := range h.auditActions("bulk", id) {
		actions = append(actions, e.Action)
	}
	if strings.Join(actions, " ") != "bulk.result bulk.confirm bulk.result bulk.confirm bulk.upload" {
		t.Errorf("audit actions %v", actions)
	}
	h.env.CheckLedger(t)
}

func TestBulkPayoutRefusesWhatItCannotPay(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	ada := h.createUser("Ada", "Lovelace")
	a, _ := h.signedIn(dashstore.RoleOperations)

	t.Run("a wallet short of the total", func(t *testing.T) {
		id := a.uploadBulk("user,amount\n" + ada.Email + ",5000000.00\n")
		// The service's preflight says it: the row is not one to pay.
		wantBody(t, a.get("/bulk/"+id), `data-testid="bulk-good">0<`, "Insufficient funds")
		res := a.post("/bulk/"+id+"/confirm", nil)
		wantStatus(t, res, http.StatusUnprocessableEntity)
		wantBody(t, res, "No row can be paid")
		wantRedirect(t, a.post("/bulk/"+id+"/cancel", nil), "/bulk")
		wantStatus(t, a.get("/bulk/"+id), http.StatusNotFound)
	})
	files := []struct {
		name, file string
		status     int
		problem    string
	}{
		{"no header", "ada,1\n", http.StatusUnprocessableEntity, "must name the columns user and amount"},
		{"too many rows", "user,amount\n" + strings.Repeat(ada.Email+",1\n", 10_001), http.StatusUnprocessableEntity, "more than 10,000 rows"},
		{"over the size limit", "user,amount,memo\n" + strings.Repeat(ada.Email+",1,"+strings.Repeat("m", 500)+"\n", 9000),
			http.StatusRequestEntityTooLarge, "this page takes files up to 4 MB"},
	}
	for _, f := range files {
		t.Run(f.name, func(t *testing.T) {
			res := a.upload("/bulk", "payouts.csv", []byte(f.file))
			wantStatus(t, res, f.status)
			wantBody(t, res, f.problem)
		})
	}
	t.Run("a body over the route's limit", func(t *testing.T) {
		req := httptest.NewRequest(http.MethodPost, "/bulk", bytes.NewReader(make([]byte, 9<<20)))
		req.Header.Set("Content-Type", "text/csv")
		res, err := h.srv.App.Test(req, -1)
		if err == nil && res.StatusCode != http.StatusRequestEntityTooLarge {
			t.Errorf("a 9 MB body: status %d", res.StatusCode)
		}
	})
	t.Run("other routes keep the default limit", func(t *testing.T) {
		res := a.post("/app/deposits", map[string][]string{"amount": {strings.Repeat("1", 2<<20)}})
		wantStatus(t, res, http.StatusRequestEntityTooLarge)
	})
}

func TestBulkPayoutNeedsMoneyMove(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	ada := h.createUser("Ada", "Lovelace")
	ops, _ := h.signedIn(dashstore.RoleOperations)
	id := ops.uploadBulk("user,amount\n" + ada.Email + ",1\n")
	for _, role := range []dashstore.Role{dashstore.RoleSupport, dashstore.RoleManager} {
		t.Run(string(role), func(t *testing.T) {
			a, _ := h.signedIn(role)
			wantStatus(t, a.get("/bulk"), http.StatusForbidden)
			wantStatus(t, a.get("/bulk/"+id), http.StatusForbidden)
			wantStatus(t, a.get("/bulk/"+id+"/result.csv"), http.StatusForbidden)
			wantStatus(t, a.upload("/bulk", "payouts.csv", []byte("user,amount\n"+ada.Email+",1\n")), http.StatusForbidden)
			wantStatus(t, a.post("/bulk/"+id+"/confirm", nil), http.StatusForbidden)
			if strings.Contains(a.get("/users").body, `href="/bulk"`) {
				t.Error("the nav links bulk payouts")
			}
		})
	}
	t.Run("an unknown job", func(t *testing.T) {
		wantStatus(t, ops.get("/bulk/00000000-0000-4000-8000-000000000000"), http.StatusNotFound)
	})
	if h.walletOf(ada.ID) != 0 {
		t.Error("money moved")
	}
}

// TestBulkPayoutTenThousandRows pays the largest file the page takes: 10,000 wallet rows to a
// few payees, in ten transfer batches.
func TestBulkPayoutTenThousandRows(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("pays 10,000 rows")
	}
	h := newHarness(t)
	users := []*payouts.User{h.createUser("Ada", "Lovelace"), h.createUser("Bobby", "Byte"), h.createUser("Cy", "Cat")}
	h.deposit(10_000 * 1_00)
	var b strings.Builder
	b.WriteString("user,amount,memo\r\n")
	for i := range 10_000 {
		fmt.Fprintf(&b, "%s,1.00,row %d\r\n", users[i%3].Email, i+1)
	}
	a, _ := h.signedIn(dashstore.RoleOperations)
	id := a.uploadBulk(b.String())
	wantBody(t, a.get("/bulk/"+id), `data-testid="bulk-good">10,000<`, "$10,000.00")
	// Above the approval threshold: nothing moves until a manager approves the job.
	held := h.approvalOf(a.post("/bulk/"+id+"/confirm", nil))
	if held.Kind != "bulk" || held.Amount != 10_000*1_00 || h.walletOf(users[0].ID) != 0 {
		t.Fatalf("held %+v; Ada holds %v", held, h.walletOf(users[0].ID))
	}
	wantStatus(t, a.post(paths.ApprovalDecision(held.ID), decide("approve", "")), http.StatusForbidden)
	manager, _ := h.signedIn(dashstore.RoleManager)
	wantRedirect(t, manager.post(paths.ApprovalDecision(held.ID), decide("approve", "")), "/approvals/"+held.ID)
	wantBody(t, a.waitBulk(id), "10,000 paid", "0 failed")
	var total payouts.Money
	for _, u := range users {
		total += h.walletOf(u.ID)
	}
	if total != 10_000*1_00 {
		t.Errorf("payees hold %v, want $10,000.00", total)
	}
}

// TestBulkPayoutResumesAfterRestart: a job the database says is running, which no process runs
// (the dashboard restarted mid-job), offers to resume instead of polling forever, and resuming
// pays it.
func TestBulkPayoutResumesAfterRestart(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	ada := h.createUser("Ada", "Lovelace")
	h.deposit(10_00)
	a, _ := h.signedIn(dashstore.RoleOperations)
	id := a.uploadBulk("user,amount\n" + ada.Email + ",4.00\n")
	wantBody(t, a.get("/bulk"), "payouts.csv", "Checked, not confirmed")
	if err := h.store.SetBulkStatus(context.Background(), id, dashstore.BulkRunning, h.clock.Now()); err != nil {
		t.Fatal(err)
	}
	page := a.get("/bulk/" + id)
	wantBody(t, page, "stopped before it finished", ">Resume<")
	if strings.Contains(page.body, `hx-get="/bulk/`+id+`/progress"`) {
		t.Error("a stalled job's progress polls")
	}
	wantRedirect(t, a.post("/bulk/"+id+"/confirm", nil), "/bulk/"+id)
	a.waitBulk(id)
	if got := h.walletOf(ada.ID); got != 4_00 {
		t.Errorf("Ada's wallet %v, want $4.00", got)
	}
}

// TestBulkPayeesOnBothBackends: a file's payees named by email are found on our service by its
// search, and on the public API, which cannot search users, in the dashboard's payee index,
// brought up to date once: two payees' rows do not mix, and a payee older than the newest 500
// users is found as well.
func TestBulkPayeesOnBothBackends(t *testing.T) {
	t.Parallel()
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			h := newHarnessWith(t, harnessSetup{public: b.public})
			ctx := context.Background()
			old := h.createUser("Olive", "Oldest")
			concurrently(t, 500, func(i int) error {
				_, err := h.env.Service.CreateUser(ctx, h.env.AppID, payouts.CreateUserRequest{FirstName: "Filler", LastName: strconv.Itoa(i),
					Email: "filler" + strconv.Itoa(i) + "@example.com", CountryCode: "1", PhoneNumber: "415" + strconv.Itoa(5550000+i)})
				return err
			})
			ada, bob := h.createUser("Ada", "Lovelace"), h.createUser("Bobby", "Byte")
			h.deposit(100_00)
			a, _ := h.signedIn(dashstore.RoleOperations)
			id := a.uploadBulk("user,amount,memo,method\n" + ada.Email + ",3.00,,wallet\n" + strings.ToUpper(bob.Email) +
				",4.00,,wallet\n" + ada.Email + ",5.00,second,wallet\n" + old.Email + ",1.00,,wallet\n")
			page := a.get("/bulk/" + id)
			wantStatus(t, page, http.StatusOK)
			wantBody(t, page, `data-testid="bulk-good">4<`)
			wantRedirect(t, a.post("/bulk/"+id+"/confirm", nil), "/bulk/"+id)
			a.waitBulk(id)
			for _, w := range []struct {
				who  *payouts.User
				want payouts.Money
			}{{ada, 8_00}, {bob, 4_00}, {old, 1_00}} {
				if got := h.walletOf(w.who.ID); got != w.want {
					t.Errorf("%s's wallet %v, want %v", w.who.FirstName, got, w.want)
				}
			}
			if b.public {
				if stripped := h.public.Stripped(); len(stripped) > 0 {
					t.Errorf("the dashboard sent the public API parameters it ignores: %v", stripped)
				}
			}
		})
	}
}
