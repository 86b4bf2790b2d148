package service

import (
	"context"
	"errors"

	"github.com/disburse/disburse/payouts"
)

// batchChunk is how many items of a batch one transaction processes: large enough that a
// 1,000-item batch takes a handful of commits, small enough that other writers wait briefly.
const batchChunk = 250

// CreateTransferBatch records a batch of transfers, pending; the worker makes them in the
// background (ProcessBatches). The batch's idempotency key gives one batch; each item's key gives
// one transfer, across batches too.
func (s *Service) CreateTransferBatch(ctx context.Context, appID string, req payouts.CreateTransferBatchRequest) (*payouts.TransferBatch, error) {
	if err := req.Validate(); err != nil {
		return nil, err
	}
	id, _, err := s.idempotent(ctx, appID, "transfer-batch", req.IdempotencyKey, req, false, func(q *Tx) (string, error) {
		now := s.now()
		b := &TransferBatchRecord{AppID: appID, IdempotencyKey: req.IdempotencyKey, Updated: now,
			TransferBatch: payouts.TransferBatch{ID: newID(), Created: payouts.NewTime(now),
				Status: payouts.BatchPending, Metadata: payouts.NormalizeMetadata(req.Metadata), Items: req.Items}}
		for i := range b.Items {
			b.Items[i].TransferID, b.Items[i].Error = nil, nil
		}
		return b.ID, q.CreateTransferBatch(ctx, b)
	})
	if err != nil {
		return nil, err
	}
	return s.GetTransferBatch(ctx, appID, id)
}

// GetTransferBatch returns a batch with its items and their outcomes so far.
func (s *Service) GetTransferBatch(ctx context.Context, appID, id string) (*payouts.TransferBatch, error) {
	if !payouts.ValidID(id) {
		return nil, notFound("transfer batch")
	}
	b, err := s.store.GetTransferBatch(ctx, appID, id)
	if err != nil {
		return nil, orNotFound(err, "transfer batch")
	}
	return &b.TransferBatch, nil
}

// ListTransferBatches returns a page of the app's batches, newest first, without their items
// (GET /v2/transfer-batches/{id} has them).
func (s *Service) ListTransferBatches(ctx context.Context, appID string, page payouts.Page) (*payouts.List[payouts.TransferBatch], error) {
	if err := page.Validate(); err != nil {
		return nil, err
	}
	recs, more, err := s.store.ListTransferBatches(ctx, appID, page)
	if err != nil {
		return nil, cursorError(err, page)
	}
	out := &payouts.List[payouts.TransferBatch]{HasMore: more, Data: make([]payouts.TransferBatch, len(recs))}
	for i := range recs {
		out.Data[i] = recs[i].TransferBatch
	}
	return out, nil
}

// ProcessBatches runs pending batches, at most max chunks of their items, and returns how many
// chunks it ran. A batch is claimed through the database, so concurrent workers never run the
// same one; an item that already has an outcome is not run again.
func (s *Service) ProcessBatches(ctx context.Context, max int) (int, error) {
	for n := 0; n < max; n++ {
		found := false
		err := s.inTx(ctx, func(q *Tx) error {
			b, err := q.ClaimPendingBatch(ctx)
			if errors.Is(err, ErrNoRecord) {
				return nil
			}
			if err != nil {
				return err
			}
			found = true
			return s.runBatchChunk(ctx, q, b)
		})
		if err != nil || !found {
			return n, err
		}
	}
	return max, nil
}

// runBatchChunk makes the next chunk of a batch's transfers, one after another in the one
// transaction, and completes the batch after its last item. An item that is refused wrote no
// transfer or posting (its plan is refused whole, batchItem), so the items around it stand
// without a savepoint each. What a chunk leaves pending the next claim picks up.
func (s *Service) runBatchChunk(ctx context.Context, q *Tx, b *TransferBatchRecord) error {
	bk, err := s.planBook(ctx, q, b.AppID)
	if err != nil {
		return err
	}
	fq := &finishLater{Tx: q, resourceIDs: map[string]string{}, claimed: map[string]bool{}}
	outcomes, more, err := s.runBatchItems(ctx, fq, bk, b)
	if err != nil {
		return err
	}
	if err := fq.setOutcomes(ctx, b, outcomes); err != nil || more {
		return err
	}
	b.Updated = s.now()
	if err := q.FinishTransferBatch(ctx, b); err != nil {
		return err
	}
	q.transferBatchFinished(b)
	return nil
}

// runBatchItems makes up to batchChunk of the batch's items that have no outcome yet, and says
// whether more are left.
func (s *Service) runBatchItems(ctx context.Context, fq *finishLater, bk *book, b *TransferBatchRecord) (outcomes []BatchItemOutcome, more bool, err error) {
	var chunk []int
	for i, it := range b.Items {
		if it.TransferID == nil && it.Error == nil {
			if len(chunk) == batchChunk {
				more = true
				break
			}
			chunk = append(chunk, i)
		}
	}
	if err := s.claimKeys(ctx, fq, b, chunk); err != nil {
		return nil, false, err
	}
	for _, i := range chunk {
		transferID, err := s.batchItem(ctx, fq, bk, b.Items[i])
		var pe *payouts.Error
		switch {
		case err == nil:
			outcomes = append(outcomes, BatchItemOutcome{Position: i, TransferID: transferID})
		case errors.As(err, &pe):
			outcomes = append(outcomes, BatchItemOutcome{Position: i, Error: pe.Message})
		default:
			return nil, false, err
		}
	}
	return outcomes, more, nil
}

// claimKeys takes the free idempotency keys of the chunk's items in one statement, instead of one
// per item; the items whose key was taken before find its record as POST /v2/transfers would.
func (s *Service) claimKeys(ctx context.Context, fq *finishLater, b *TransferBatchRecord, chunk []int) error {
	var keys []IdempotencyRecord
	for _, i := range chunk {
		if it := b.Items[i]; it.IdempotencyKey != "" {
			_, hash, err := itemRequest(it)
			if err != nil {
				return err
			}
			keys = append(keys, IdempotencyRecord{AppID: b.AppID, Key: it.IdempotencyKey, Operation: "transfer",
				RequestHash: hash, Created: s.now()})
		}
	}
	claimed, err := fq.ClaimIdempotencyKeys(ctx, keys)
	for _, k := range claimed {
		fq.claimed[k] = true
	}
	return err
}

// itemRequest is the POST /v2/transfers request of a batch item, and its fingerprint when it has
// an idempotency key.
func itemRequest(it payouts.TransferBatchItem) (payouts.CreateTransferRequest, string, error) {
	req := payouts.CreateTransferRequest{UserID: it.UserID, Amount: it.Amount, TaxExempt: it.TaxExempt,
		IdempotencyKey: it.IdempotencyKey, Metadata: it.Metadata}
	if req.IdempotencyKey == "" {
		return req, "", nil
	}
	hash, err := requestHash("transfer", req)
	return req, hash, err
}

// batchItem makes one item's transfer through the same path as POST /v2/transfers, idempotent
// on the item's key. A refused item wrote nothing but the claim of its key, by the chunk or by
// the item itself, which is released with the chunk's outcomes (an expired key it took afresh
// stays forgotten, as the purge would have it), and, for a user paid for the first time, their
// empty wallet.
func (s *Service) batchItem(ctx context.Context, fq *finishLater, b *book, it payouts.TransferBatchItem) (string, error) {
	req, hash, err := itemRequest(it)
	if err != nil {
		return "", err
	}
	id, _, err := s.idempotentIn(ctx, fq.Tx, fq, b.appID, "transfer", req.IdempotencyKey, hash, "", false, func(q *Tx) (string, error) {
		mark := len(q.changes)
		t, err := s.balanceTransfer(ctx, q, b, s.transferIDs.New(b.appID), req)
		if err == nil {
			// Each item's plan is applied as it is decided: a later item's guard sees its
			// effect, and a refused one (its plan and its events dropped) writes nothing.
			err = q.apply(ctx)
		}
		if err != nil {
			q.plan, q.changes = Plan{}, q.changes[:mark]
			return "", err
		}
		return t.ID, nil
	})
	if err != nil && fq.claimed[it.IdempotencyKey] {
		fq.release = append(fq.release, it.IdempotencyKey)
	}
	return id, err
}

// finishLater is the Queries of a chunk's items: it records the resources of the items'
// idempotency keys when the chunk ends, in one statement for all, instead of one per item. No
// one outside the transaction can tell; inside it, a claim of a key the chunk made answers as
// the finished key would.
type finishLater struct {
	*Tx
	keys        []string
	resourceIDs map[string]string
	claimed     map[string]bool // keys taken for the chunk's items, by the chunk (claimKeys) or the item
	release     []string        // claimed keys of items that failed
}

func (f *finishLater) FinishIdempotencyKey(_ context.Context, _, key, resourceID string) error {
	f.keys = append(f.keys, key)
	f.resourceIDs[key] = resourceID
	return nil
}

func (f *finishLater) ClaimIdempotencyKey(ctx context.Context, k *IdempotencyRecord) (*IdempotencyRecord, error) {
	if f.claimed[k.Key] {
		return nil, nil // taken for this item by the chunk's claim
	}
	prior, err := f.Tx.ClaimIdempotencyKey(ctx, k)
	switch {
	case err == nil && prior == nil:
		f.claimed[k.Key] = true // taken now by its item: an expired key, released and claimed again
	case prior != nil && prior.ResourceID == "":
		prior.ResourceID = f.resourceIDs[k.Key]
	}
	return prior, err
}

// setOutcomes releases the keys of the chunk's failed items, finishes the others and records the
// items' outcomes.
func (f *finishLater) setOutcomes(ctx context.Context, b *TransferBatchRecord, outcomes []BatchItemOutcome) error {
	if err := f.ReleaseIdempotencyKeys(ctx, b.AppID, f.release); err != nil {
		return err
	}
	if err := f.FinishIdempotencyKeys(ctx, b.AppID, f.keys, f.resourceIDs); err != nil {
		return err
	}
	return f.SetBatchItemOutcomes(ctx, b.ID, outcomes)
}
