package service

import (
	"context"

	"github.com/disburse/disburse/payouts"
)

// A payee reaches their 1099-NEC forms on a hosted flow with the tax-forms step, once they have
// proved who they are there (IdentifyPayee, VerifyPayee), as on every hosted step. They see
// their forms only after consenting to electronic delivery, which the IRS asks a payer to have
// before furnishing a recipient copy only online.

// payeeOnFlow is the app of a flow userID was verified on: a flow another payee holds is
// refused.
func (s *Service) payeeOnFlow(ctx context.Context, flowID, userID string) (appID string, err error) {
	f, err := s.OpenFlow(ctx, flowID)
	if err != nil {
		return "", err
	}
	if f.UserID == nil || *f.UserID != userID {
		return "", errFlowTaken
	}
	return f.AppID, nil
}

// PayeeTaxForms is what the tax-forms step shows a payee: their consent, and while it stands
// their form in force for this year and the last.
func (s *Service) PayeeTaxForms(ctx context.Context, flowID, userID string) (forms []payouts.Form1099, consent TaxConsent, err error) {
	appID, err := s.payeeOnFlow(ctx, flowID, userID)
	if err != nil {
		return nil, consent, err
	}
	consents, err := s.store.TaxConsents(ctx, appID)
	if err != nil {
		return nil, consent, err
	}
	if consent = consents[userID]; !consent.Stands() {
		return nil, consent, nil
	}
	for _, year := range []int{s.now().Year(), s.now().Year() - 1} {
		recs, err := s.store.TaxReturns(ctx, appID, year, userID)
		if err != nil {
			return nil, consent, err
		}
		for _, r := range latestReturns(recs) {
			var b taxReturnBlocks
			if err := s.openTaxReturn(&r, &b); err != nil {
				return nil, consent, err
			}
			forms = append(forms, *form1099Of(&r, b))
		}
	}
	return forms, consent, nil
}

// ConsentOnFlow records the consent a payee gave on the tax-forms step.
func (s *Service) ConsentOnFlow(ctx context.Context, flowID, userID string, consent bool) error {
	if !consent {
		return payouts.FieldError("consent", "is needed to receive your forms electronically; without it they are mailed to you")
	}
	appID, err := s.payeeOnFlow(ctx, flowID, userID)
	if err != nil {
		return err
	}
	return s.ConsentToElectronicForms(ctx, appID, userID)
}

// WithdrawConsentOnFlow records that the payee withdrew, on the tax-forms step, the consent
// they gave there.
func (s *Service) WithdrawConsentOnFlow(ctx context.Context, flowID, userID string) error {
	appID, err := s.payeeOnFlow(ctx, flowID, userID)
	if err != nil {
		return err
	}
	return s.WithdrawElectronicFormsConsent(ctx, appID, userID)
}

// PayeeTaxFormPDF is the Copy B of one of the payee's own forms, once they consented.
func (s *Service) PayeeTaxFormPDF(ctx context.Context, flowID, userID, formID string) (name string, pdf []byte, err error) {
	forms, consent, err := s.PayeeTaxForms(ctx, flowID, userID)
	if err != nil {
		return "", nil, err
	}
	if !consent.Stands() {
		return "", nil, payouts.Errorf(payouts.EForbidden, "Agree to receive your forms electronically first.")
	}
	for _, f := range forms {
		if f.ID == formID {
			appID, err := s.payeeOnFlow(ctx, flowID, userID)
			if err != nil {
				return "", nil, err
			}
			return s.Form1099PDF(ctx, appID, formID)
		}
	}
	return "", nil, notFound("tax form")
}
