package hosted

import (
	"github.com/gofiber/fiber/v2"

	"github.com/disburse/disburse/internal/service"
	views "github.com/disburse/disburse/views/hosted"
)

// payoutLink is GET /l/{id}: the claim page of a payout link, which leads into its flow.
func (h *Handler) payoutLink(c *fiber.Ctx) error {
	l, err := h.svc.OpenPayoutLink(c.UserContext(), c.Params("id"))
	if err != nil {
		return err
	}
	if l.FlowID == nil {
		return fiber.ErrNotFound
	}
	hf, err := h.svc.OpenHostedFlow(c.UserContext(), *l.FlowID)
	if err != nil {
		return err
	}
	if err := h.svc.CheckClaimKey(hf, c.Query("k")); err != nil {
		return err
	}
	return h.render(c, fiber.StatusOK, "Your payout", hf.AppName, views.PayoutLinkPage(linkView(hf)))
}

// linkView is the claim page's model of the payout link of a flow.
func linkView(hf *service.HostedFlow) views.PayoutLink {
	l := hf.Link
	return views.PayoutLink{AppName: hf.AppName, Amount: l.Amount, Memo: l.Memo, Status: l.Status,
		FlowURL: views.Flow{ID: hf.ID, Key: hf.Key}.URL(), Created: l.Created}
}
