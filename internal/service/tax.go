package service

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/disburse/disburse/internal/taxform"
	"github.com/disburse/disburse/payouts"
)

// TaxReads read what year-end tax forms are made of.
type TaxReads interface {
	// ReportablePayments sums per user what the app's payouts paid in [from, to) as 1099-NEC
	// box 1 counts it, from the ledger; users paid nothing are absent.
	ReportablePayments(ctx context.Context, appID string, from, to time.Time) (map[string]payouts.Money, error)
	// TaxFormsInForce reads the latest W-9 or W-8BEN of each user who gave one.
	TaxFormsInForce(ctx context.Context, appID string) (map[string]TaxFormRecord, error)
	// TaxReturns reads every version of the year's 1099-NEC forms, of one user if userID is
	// set, oldest first.
	TaxReturns(ctx context.Context, appID string, year int, userID string) ([]TaxReturnRecord, error)
	GetTaxReturn(ctx context.Context, appID, id string) (*TaxReturnRecord, error)
	// TaxConsents reads when each user who did agreed to electronic delivery, and withdrew it.
	TaxConsents(ctx context.Context, appID string) (map[string]TaxConsent, error)
}

// TaxWrites write 1099-NEC forms and consents.
type TaxWrites interface {
	SaveTaxReturn(ctx context.Context, r *TaxReturnRecord) error
	SaveTaxConsent(ctx context.Context, appID, userID string, at time.Time) error
	WithdrawTaxConsent(ctx context.Context, appID, userID string, at time.Time) error
}

// TaxConsent is a payee's consent to receive their forms electronically: Withdrawn is zero while
// it stands.
type TaxConsent struct {
	Consented time.Time
	Withdrawn time.Time
}

// Stands says the payee consented and has not withdrawn it.
func (c TaxConsent) Stands() bool { return !c.Consented.IsZero() && c.Withdrawn.IsZero() }

// TaxReturnRecord is a version of a payee's 1099-NEC as stored: the payer's and payee's blocks,
// both TINs in full, sealed as JSON (taxReturnBlocks).
type TaxReturnRecord struct {
	ID       string
	AppID    string
	UserID   string
	Year     int
	Amount   payouts.Money
	Status   string
	Corrects string
	Sealed   []byte
	TINLast4 string
	Created  time.Time
}

type taxReturnBlocks struct {
	Payer payouts.TaxPayer `json:"payer"`
	Payee payouts.TaxPayee `json:"payee"`
}

// taxYear is the calendar year in UTC, the time the ledger keeps.
func taxYear(year int) (from, to time.Time) {
	return time.Date(year, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(year+1, 1, 1, 0, 0, 0, 0, time.UTC)
}

// validTaxYear refuses a year no payout of this service can have been made in, or one not over.
func validTaxYear(year int) error {
	if year < 2000 || year > 9999 {
		return payouts.FieldError("year", "must be a calendar year, such as 2026")
	}
	return nil
}

// ReportableTotals is every payee the app paid in year, with what 1099-NEC box 1 counts for
// them, against the year's threshold; sorted by name, then id.
func (s *Service) ReportableTotals(ctx context.Context, appID string, year int) ([]payouts.ReportableTotal, error) {
	y, err := s.readTaxYear(ctx, appID, year)
	if err != nil {
		return nil, err
	}
	out := make([]payouts.ReportableTotal, 0, len(y.totals))
	for _, t := range y.totals {
		out = append(out, t)
	}
	slices.SortFunc(out, func(a, b payouts.ReportableTotal) int {
		return cmp.Or(cmp.Compare(a.Name, b.Name), cmp.Compare(a.UserID, b.UserID))
	})
	return out, nil
}

// ReportableTotal is one payee's ReportableTotals entry: a payee paid nothing has one of 0.
func (s *Service) ReportableTotal(ctx context.Context, appID, userID string, year int) (*payouts.ReportableTotal, error) {
	y, err := s.readTaxYear(ctx, appID, year)
	if err != nil {
		return nil, err
	}
	if t, ok := y.totals[userID]; ok {
		return &t, nil
	}
	user, err := s.getUser(ctx, s.store, appID, userID)
	if err != nil {
		return nil, err
	}
	t := y.total(user, 0)
	return &t, nil
}

// taxYearData is what a year's forms are decided from, read once.
type taxYearData struct {
	year      int
	threshold payouts.Money
	totals    map[string]payouts.ReportableTotal
	forms     map[string]TaxFormRecord
	consents  map[string]TaxConsent
}

func (s *Service) readTaxYear(ctx context.Context, appID string, year int) (*taxYearData, error) {
	if err := validTaxYear(year); err != nil {
		return nil, err
	}
	from, to := taxYear(year)
	paid, err := s.store.ReportablePayments(ctx, appID, from, to)
	if err != nil {
		return nil, err
	}
	y := &taxYearData{year: year, threshold: s.threshold1099(year), totals: map[string]payouts.ReportableTotal{}}
	if y.forms, err = s.store.TaxFormsInForce(ctx, appID); err != nil {
		return nil, err
	}
	if y.consents, err = s.store.TaxConsents(ctx, appID); err != nil {
		return nil, err
	}
	for userID, amount := range paid {
		user, err := s.getUser(ctx, s.store, appID, userID)
		if err != nil {
			return nil, err
		}
		y.totals[userID] = y.total(user, amount)
	}
	return y, nil
}

// total is a payee's year: a 1099-NEC is due at or over the threshold (the IRS's "$2,000 or
// more") unless the payee certified on a W-8BEN that they are a foreign person.
func (y *taxYearData) total(user *UserRecord, amount payouts.Money) payouts.ReportableTotal {
	f := y.forms[user.ID]
	t := payouts.ReportableTotal{UserID: user.ID, Name: user.Name(), Year: y.year, Amount: amount,
		Threshold: y.threshold, TaxForm: f.Kind, TINLast4: f.TINLast4}
	c := y.consents[user.ID]
	t.Consented = c.Stands()
	if !c.Withdrawn.IsZero() {
		t.ConsentWithdrawn = &c.Withdrawn
	}
	t.Reportable = amount >= y.threshold && f.Kind != payouts.TaxFormW8BEN
	t.MissingTIN = t.Reportable && f.Kind != payouts.TaxFormW9
	return t
}

// GenerateForms1099 brings the app's 1099-NEC forms for year in line with its ledger: a payee
// due a form with none gets one issued; one whose total changed since their form gets a
// corrected form; one no longer due (their payouts came back, or they gave a W-8BEN) gets the
// form voided. A payee due a form without a W-9 on file gets none and is named in Skipped.
// The payer's block is the app's compliance details, which must be set.
func (s *Service) GenerateForms1099(ctx context.Context, appID string, year int) (*payouts.Forms1099Run, error) {
	y, err := s.readTaxYear(ctx, appID, year)
	if err != nil {
		return nil, err
	}
	payer, err := s.taxPayer(ctx, appID)
	if err != nil {
		return nil, err
	}
	run := &payouts.Forms1099Run{Year: year, Written: []payouts.Form1099{}, Skipped: map[string]string{}}
	err = s.store.InTx(ctx, func(q Queries) error {
		run.Written = run.Written[:0]
		clear(run.Skipped)
		existing, err := q.TaxReturns(ctx, appID, year, "")
		if err != nil {
			return err
		}
		latest := map[string]TaxReturnRecord{}
		for _, r := range latestReturns(existing) {
			latest[r.UserID] = r
		}
		users := make([]string, 0, len(y.totals)+len(latest))
		for id := range y.totals {
			users = append(users, id)
		}
		for id := range latest {
			if _, ok := y.totals[id]; !ok {
				users = append(users, id)
			}
		}
		slices.Sort(users)
		for _, id := range users {
			t, prev := y.totals[id], latest[id]
			due := t.Reportable && !t.MissingTIN
			if t.MissingTIN {
				run.Skipped[id] = "no W-9 on file: send the payee a W-9 request"
			}
			var status string
			switch {
			case due && prev.ID == "":
				status = payouts.Form1099Issued
			case due && (prev.Status == payouts.Form1099Voided || prev.Amount != t.Amount):
				status = payouts.Form1099Corrected
			case !due && prev.ID != "" && prev.Status != payouts.Form1099Voided && !t.MissingTIN:
				status = payouts.Form1099Voided
			default:
				continue
			}
			rec, form, err := s.newTaxReturn(appID, year, id, status, t.Amount, prev, payer, y.forms[id])
			if err != nil {
				return err
			}
			if err := q.SaveTaxReturn(ctx, rec); err != nil {
				return err
			}
			run.Written = append(run.Written, *form)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(run.Skipped) == 0 {
		run.Skipped = nil
	}
	return run, nil
}

// newTaxReturn makes a version of a payee's form: a voided form reports 0 and keeps the blocks
// of the form it voids.
func (s *Service) newTaxReturn(appID string, year int, userID, status string, amount payouts.Money, prev TaxReturnRecord,
	payer payouts.TaxPayer, taxForm TaxFormRecord) (*TaxReturnRecord, *payouts.Form1099, error) {
	var blocks taxReturnBlocks
	if status == payouts.Form1099Voided {
		amount = 0
		if err := s.openTaxReturn(&prev, &blocks); err != nil {
			return nil, nil, err
		}
	} else {
		payee, err := s.taxPayee(taxForm)
		if err != nil {
			return nil, nil, err
		}
		blocks = taxReturnBlocks{Payer: payer, Payee: payee}
	}
	sealed, err := json.Marshal(blocks)
	if err != nil {
		return nil, nil, err
	}
	rec := &TaxReturnRecord{ID: newID(), AppID: appID, UserID: userID, Year: year, Amount: amount, Status: status,
		Corrects: prev.ID, TINLast4: blocks.Payee.TINLast4, Created: s.now()}
	rec.Sealed = s.seal(sealed, aadOf(SealedTaxReturn, rec.ID))
	return rec, form1099Of(rec, blocks), nil
}

func (s *Service) openTaxReturn(r *TaxReturnRecord, blocks *taxReturnBlocks) error {
	plain, err := s.open(r.Sealed, aadOf(SealedTaxReturn, r.ID))
	if err != nil {
		return err
	}
	return json.Unmarshal(plain, blocks)
}

// form1099Of is a stored form as reads show it: the payee's TIN truncated to its last four, the
// payer's EIN masked.
func form1099Of(r *TaxReturnRecord, b taxReturnBlocks) *payouts.Form1099 {
	b.Payer.TIN = payouts.MaskEIN(b.Payer.TIN)
	b.Payee.TIN = ""
	return &payouts.Form1099{ID: r.ID, UserID: r.UserID, Year: r.Year, Amount: r.Amount, Status: r.Status,
		Corrects: r.Corrects, Payer: b.Payer, Payee: b.Payee, Created: payouts.NewTime(r.Created)}
}

// taxPayer is the payer's block from the app's compliance details, EIN in full.
func (s *Service) taxPayer(ctx context.Context, appID string) (payouts.TaxPayer, error) {
	a, err := s.store.GetApp(ctx, appID)
	if err != nil {
		return payouts.TaxPayer{}, orNotFound(err, "app")
	}
	if a.ComplianceSealed == nil {
		return payouts.TaxPayer{}, payouts.Errorf(payouts.EUserInfoMissing,
			"The app has no compliance details: set the payer's legal name, EIN, address and phone first.")
	}
	plain, err := s.open(a.ComplianceSealed, aadOf(SealedAppCompliance, a.ID))
	if err != nil {
		return payouts.TaxPayer{}, err
	}
	var c payouts.BusinessCompliance
	if err := json.Unmarshal(plain, &c); err != nil {
		return payouts.TaxPayer{}, err
	}
	return payouts.TaxPayer{Name: c.CompanyInfo.Name, TIN: c.CompanyInfo.EIN, Phone: c.ContactInfo.PhoneNumber,
		Address: c.ContactInfo.PostalAddress}, nil
}

// taxPayee is the recipient's block from their W-9: the business's name for a business, else
// the person's.
func (s *Service) taxPayee(f TaxFormRecord) (payouts.TaxPayee, error) {
	plain, err := s.open(f.Sealed, aadOf(SealedTaxForm, f.UserID))
	if err != nil {
		return payouts.TaxPayee{}, err
	}
	var req payouts.ComplianceRequest
	if err := json.Unmarshal(plain, &req); err != nil {
		return payouts.TaxPayee{}, err
	}
	w := req.W9
	name := strings.TrimSpace(w.FirstName + " " + w.LastName)
	if w.EntityType == payouts.EntityBusiness {
		name = w.BusinessName
	}
	return payouts.TaxPayee{Name: name, TIN: w.TIN, TINLast4: payouts.Last4(w.TIN), Business: w.EntityType == payouts.EntityBusiness,
		Address: w.Address}, nil
}

// Forms1099 reads every version of the app's 1099-NEC forms for year, of one payee when userID
// is set, oldest first.
func (s *Service) Forms1099(ctx context.Context, appID string, year int, userID string) ([]payouts.Form1099, error) {
	if err := validTaxYear(year); err != nil {
		return nil, err
	}
	if userID != "" {
		if _, err := s.getUser(ctx, s.store, appID, userID); err != nil {
			return nil, err
		}
	}
	recs, err := s.store.TaxReturns(ctx, appID, year, userID)
	if err != nil {
		return nil, err
	}
	out := make([]payouts.Form1099, 0, len(recs))
	for i := range recs {
		var b taxReturnBlocks
		if err := s.openTaxReturn(&recs[i], &b); err != nil {
			return nil, err
		}
		out = append(out, *form1099Of(&recs[i], b))
	}
	return out, nil
}

// returnsOf opens stored forms into what package taxform writes, both TINs in full.
func (s *Service) returnsOf(recs []TaxReturnRecord) ([]taxform.Return, error) {
	out := make([]taxform.Return, 0, len(recs))
	for i := range recs {
		r := &recs[i]
		var b taxReturnBlocks
		if err := s.openTaxReturn(r, &b); err != nil {
			return nil, err
		}
		out = append(out, taxform.Return{ID: r.ID, Year: r.Year, Status: r.Status, Amount: r.Amount,
			Payer: b.Payer, Payee: b.Payee, Created: r.Created})
	}
	return out, nil
}

// latestReturns keeps each payee's version of their form in force: the one no later version
// corrects (the chain of corrections, not the clock, orders them), in the order given.
func latestReturns(recs []TaxReturnRecord) []TaxReturnRecord {
	replaced := map[string]bool{}
	for _, r := range recs {
		replaced[r.Corrects] = true
	}
	var out []TaxReturnRecord
	for _, r := range recs {
		if !replaced[r.ID] {
			out = append(out, r)
		}
	}
	return out
}

// Form1099PDF is the recipient's Copy B of one version of a form, and the file name to give it.
func (s *Service) Form1099PDF(ctx context.Context, appID, id string) (name string, pdf []byte, err error) {
	rec, err := s.store.GetTaxReturn(ctx, appID, id)
	if err != nil {
		return "", nil, orNotFound(err, "tax form")
	}
	returns, err := s.returnsOf([]TaxReturnRecord{*rec})
	if err != nil {
		return "", nil, err
	}
	pdf, err = taxform.CopyB(returns[0])
	return taxform.FileName(returns[0]), pdf, err
}

// Forms1099ZIP is the Copy B of every payee's form in force for year, in one ZIP for printing
// and mailing; only those of payees who have not consented to electronic delivery when
// toMail is set.
func (s *Service) Forms1099ZIP(ctx context.Context, appID string, year int, toMail bool) ([]byte, error) {
	if err := validTaxYear(year); err != nil {
		return nil, err
	}
	recs, err := s.store.TaxReturns(ctx, appID, year, "")
	if err != nil {
		return nil, err
	}
	recs = latestReturns(recs)
	if toMail {
		consents, err := s.store.TaxConsents(ctx, appID)
		if err != nil {
			return nil, err
		}
		recs = slices.DeleteFunc(recs, func(r TaxReturnRecord) bool { return consents[r.UserID].Stands() })
	}
	returns, err := s.returnsOf(recs)
	if err != nil {
		return nil, err
	}
	return taxform.ZIP(returns)
}

// IRISFile is the year's 1099-NEC upload for the IRS's IRIS Taxpayer Portal: each payee's form
// in force, the originals (issued) or, with corrections set, the corrected and voided ones, which
// IRIS takes in a submission of their own. A record that would not pass is refused before
// anything is written, each problem named in the error's fields by form id.
func (s *Service) IRISFile(ctx context.Context, appID string, year int, corrections bool) ([]byte, error) {
	if err := validTaxYear(year); err != nil {
		return nil, err
	}
	recs, err := s.store.TaxReturns(ctx, appID, year, "")
	if err != nil {
		return nil, err
	}
	recs = slices.DeleteFunc(latestReturns(recs), func(r TaxReturnRecord) bool {
		return (r.Status == payouts.Form1099Issued) == corrections
	})
	returns, err := s.returnsOf(recs)
	if err != nil {
		return nil, err
	}
	data, err := taxform.IRISCSV(returns, s.cfg.IRISTCC)
	var refused *taxform.IRISError
	if errors.As(err, &refused) {
		p := payouts.Problems{}
		for _, pr := range refused.Problems {
			field := pr.Field
			if pr.FormID != "" {
				field = "forms." + pr.FormID + "." + pr.Field
			}
			p.Add(field, pr.Reason)
		}
		return nil, p.Err()
	}
	return data, err
}

// ConsentToElectronicForms records that the payee agreed to receive their 1099 forms
// electronically, from the hosted page where they proved who they are.
func (s *Service) ConsentToElectronicForms(ctx context.Context, appID, userID string) error {
	return s.store.InTx(ctx, func(q Queries) error {
		if _, err := s.getUser(ctx, q, appID, userID); err != nil {
			return err
		}
		return q.SaveTaxConsent(ctx, appID, userID, s.now())
	})
}

// WithdrawElectronicFormsConsent records that the payee withdrew their consent: forms issued
// after it are mailed to them; those already furnished stay furnished, as the IRS has it.
func (s *Service) WithdrawElectronicFormsConsent(ctx context.Context, appID, userID string) error {
	return s.store.InTx(ctx, func(q Queries) error {
		consents, err := q.TaxConsents(ctx, appID)
		if err != nil {
			return err
		}
		if !consents[userID].Stands() {
			return payouts.FieldError("consent", "there is no consent to electronic delivery to withdraw")
		}
		return q.WithdrawTaxConsent(ctx, appID, userID, s.now())
	})
}
