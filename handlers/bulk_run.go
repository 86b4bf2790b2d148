package handlers

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/google/uuid"

	"github.com/disburse/disburse/internal/dashstore"
	"github.com/disburse/disburse/payouts"
)

// bulkParallel bounds the calls a bulk job makes to the service at once, to resolve its users or
// send its payouts: enough to overlap round trips, few enough to leave the service to others.
const bulkParallel = 8

// bulkKeySpace is the namespace of the rows' idempotency keys (uuid.NewSHA1 of file hash and row).
var bulkKeySpace = uuid.MustParse("6f1d2c34-7b0e-4a51-9c3e-2b8f5d6a9e10")

// bulkRowKey is a row's idempotency key: the same file and row always give the same key, so a
// second upload of the file, or a run resumed after a crash, makes each payment once.
func bulkRowKey(fileHash string, row int) string {
	return uuid.NewSHA1(bulkKeySpace, []byte(fileHash+":"+strconv.Itoa(row))).String()
}

// inParallel calls fn for 0..n-1, at most limit at once, and waits for all.
func inParallel(limit, n int, fn func(i int)) {
	var wg sync.WaitGroup
	slots := make(chan struct{}, limit)
	for i := range n {
		slots <- struct{}{}
		wg.Go(func() {
			defer func() { <-slots }()
			fn(i)
		})
	}
	wg.Wait()
}

// resolveBulkRows finds the user each good row names, once per distinct user id or email, puts
// a problem on the rows whose user is unknown or that repeat an earlier row, and then on those
// the service's preflight would refuse, in its words. Only a failing service is an error.
func (h *Handlers) resolveBulkRows(ctx context.Context, fileHash string, rows []dashstore.BulkRow) error {
	refs := map[string]*bulkUser{}
	var order []string
	for _, r := range rows {
		ref := strings.ToLower(r.UserRef)
		if r.Problem == "" && refs[ref] == nil {
			refs[ref] = &bulkUser{}
			order = append(order, ref)
		}
	}
	byEmail, err := h.bulkUsersByEmail(ctx, order)
	if err != nil {
		return err
	}
	var failed error
	var mu sync.Mutex
	inParallel(bulkParallel, len(order), func(i int) {
		if err := h.findBulkUser(ctx, order[i], refs[order[i]], byEmail); err != nil {
			mu.Lock()
			failed = errors.Join(failed, err)
			mu.Unlock()
		}
	})
	if failed != nil {
		return failed
	}
	// A file naming the same payment twice, memo and all, is taken for a line pasted twice. Rows
	// that differ in their memo are lines of their own here (a payee paid for two jobs); that a
	// row pays again what an earlier file paid is BulkRepeats' to say, and there the memo counts
	// for nothing.
	seen := map[string]int{}
	var good []dashstore.BulkRow
	for i := range rows {
		r := &rows[i]
		if r.Problem != "" {
			continue
		}
		u := refs[strings.ToLower(r.UserRef)]
		r.UserID, r.Problem = u.id, u.problem
		key := fmt.Sprint(r.UserID, "|", r.Amount, "|", r.Memo, "|", r.Method)
		if first, dup := seen[key]; dup && r.Problem == "" {
			r.Problem = fmt.Sprintf("Repeats row %d (same user, amount, memo and method).", first)
		} else if !dup {
			seen[key] = r.Row
		}
		if r.Problem == "" {
			good = append(good, *r)
		}
	}
	problems, err := h.bulkPreflight(ctx, fileHash, good)
	if err != nil {
		return err
	}
	for i := range rows {
		if p, ok := problems[rows[i].Row]; ok {
			rows[i].Problem = p
		}
	}
	return nil
}

// bulkPreflight asks the service's preflight about rows, in the order a run sends them (wallet
// rows, in transfer batches, before payouts), each as the run will send it, and returns what it
// would refuse each for, by row number; a row it lets through is absent. Empty when the service
// has no preflight.
func (h *Handlers) bulkPreflight(ctx context.Context, fileHash string, rows []dashstore.BulkRow) (map[int]string, error) {
	ordered := slices.Clone(rows)
	slices.SortStableFunc(ordered, func(a, b dashstore.BulkRow) int {
		return cmp.Compare(bulkRunOrder(a), bulkRunOrder(b))
	})
	items := make([]payouts.PreflightItem, len(ordered))
	for i, r := range ordered {
		if r.Method == bulkWallet {
			tr := bulkTransferRequest(fileHash, r)
			items[i].Transfer = &tr
			continue
		}
		req, err := h.bulkPayoutRequest(ctx, fileHash, r)
		if err != nil {
			return nil, err
		}
		items[i].Payout = &req
	}
	found, err := h.preflightItems(ctx, items)
	if err != nil {
		return nil, err
	}
	problems := map[int]string{}
	for i, pf := range found {
		if !pf.OK {
			problems[ordered[i].Row] = problemsText(pf)
		}
	}
	return problems, nil
}

// bulkRunOrder is when a run sends a row: wallet rows (0) before payouts (1).
func bulkRunOrder(r dashstore.BulkRow) int {
	if r.Method == bulkWallet {
		return 0
	}
	return 1
}

// bulkUser is what validation learned about one user a file names.
type bulkUser struct {
	id      string
	problem string
}

// usersByEmail is how far the payee index had read the users when a file's emails were looked
// up in it, on a service that cannot search them (the public API has no search on GET /v2/users).
type usersByEmail struct {
	index dashstore.PayeeIndex
}

// bulkUsersByEmail brings the payee index up to date once for a whole file whose emails are
// found in it when the service cannot search users; nil when it can, or when the file names
// nobody by email.
func (h *Handlers) bulkUsersByEmail(ctx context.Context, refs []string) (*usersByEmail, error) {
	if !slices.ContainsFunc(refs, func(ref string) bool { return strings.Contains(ref, "@") }) {
		return nil, nil
	}
	if use, err := h.usesPayeeIndex(ctx); !use || err != nil {
		return nil, err
	}
	st, err := h.refreshPayees(ctx, olderPayeePages)
	if err != nil {
		return nil, err
	}
	return &usersByEmail{index: st}, nil
}

// findBulkUser looks ref (a user id or an email) up in the service; an email among byEmail's
// users when the service cannot search them.
func (h *Handlers) findBulkUser(ctx context.Context, ref string, out *bulkUser, byEmail *usersByEmail) error {
	var u *payouts.User
	switch {
	case strings.Contains(ref, "@"):
		var found []*payouts.User
		if byEmail != nil {
			users, err := h.store.PayeesByEmail(ctx, ref)
			if err != nil {
				return err
			}
			for i := range users {
				found = append(found, &users[i])
			}
		} else {
			list, err := h.payouts.ListUsers(ctx, payouts.Page{Limit: payouts.MaxLimit}, payouts.UserFilter{Search: ref})
			if err != nil {
				return err
			}
			for i := range list.Data {
				if strings.EqualFold(list.Data[i].Email, ref) {
					found = append(found, &list.Data[i])
				}
			}
		}
		if len(found) > 1 {
			out.problem = "More than one user has the email " + ref + ": use the user id."
			return nil
		}
		if len(found) == 1 {
			u = found[0]
		} else if byEmail != nil && !byEmail.index.Complete {
			out.problem = "No user " + ref + " among the " + payouts.Grouped(int64(byEmail.index.Payees)) +
				" users the dashboard has read so far (this API cannot search users by email): use the user id."
			return nil
		}
	case payouts.ValidID(ref):
		found, err := h.getUser(ctx, ref)
		if payouts.ErrorCode(err) != payouts.ENotFound {
			if err != nil {
				return err
			}
			u = found
		}
	default:
		out.problem = quoted(ref) + " is neither a user id nor an email."
		return nil
	}
	if u == nil {
		out.problem = "No user " + ref + "."
		return nil
	}
	out.id = u.ID
	return nil
}

// bulkMetadata tags what a row pays with the file and row it came from, and its memo. It
// depends on the file alone, as the idempotency key does: a key sent again must come with the
// same request.
func bulkMetadata(fileHash string, r dashstore.BulkRow) payouts.Metadata {
	m := map[string]any{"bulk_file": fileHash, "row": r.Row}
	if r.Memo != "" {
		m["memo"] = r.Memo
	}
	b, _ := json.Marshal(m)
	return b
}
