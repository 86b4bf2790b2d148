package api

import (
	"strconv"

	"github.com/gofiber/fiber/v2"

	"github.com/disburse/disburse/payouts"
)

func (h *handler) getApp(c *fiber.Ctx) error {
	app, err := h.svc.GetApp(c.UserContext(), appID(c), c.Params("app_id"))
	if err != nil {
		return err
	}
	return c.JSON(app)
}

func (h *handler) deposit(c *fiber.Ctx) error {
	var req payouts.DepositRequest
	if err := decode(c, &req); err != nil {
		return err
	}
	t, err := h.svc.Deposit(c.UserContext(), appID(c), c.Params("app_id"), req)
	if err != nil {
		return err
	}
	return c.JSON(t)
}

// withdraw answers 201 with the payout of the app's money to its ACH account: pending, or
// failed when the rail refused it at once.
func (h *handler) withdraw(c *fiber.Ctx) error {
	var req payouts.WithdrawRequest
	if err := decode(c, &req); err != nil {
		return err
	}
	t, err := h.svc.AppWithdraw(c.UserContext(), appID(c), c.Params("app_id"), req)
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusCreated).JSON(t)
}

// appStats answers GET /v2/apps/{app_id}/stats?days=N&zone=Z, our extension for the dashboard's
// overview.
func (h *handler) appStats(c *fiber.Ctx) error {
	days := 0
	if v := c.Query("days"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			return payouts.FieldError("days", "must be a whole number")
		}
		days = n
	}
	stats, err := h.svc.AppStats(c.UserContext(), appID(c), c.Params("app_id"), days, c.Query("zone"))
	if err != nil {
		return err
	}
	return c.JSON(stats)
}

func (h *handler) createApp(c *fiber.Ctx) error {
	var req payouts.CreateAppRequest
	if err := decode(c, &req); err != nil {
		return err
	}
	app, err := h.svc.CreateOrganizationApp(c.UserContext(), organizationID(c), req)
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusCreated).JSON(app)
}

// listApps answers a page of the organization's apps as the public model declares it, a bare
// array; with envelope=true (our extension) as the other lists are, {has_more, data}, so that a
// client can page without guessing.
func (h *handler) listApps(c *fiber.Ctx) error {
	p, err := page(c)
	if err != nil {
		return err
	}
	envelope, err := boolQuery(c, "envelope")
	if err != nil {
		return err
	}
	list, err := h.svc.ListOrganizationApps(c.UserContext(), organizationID(c), p)
	if err != nil {
		return err
	}
	if envelope {
		return c.JSON(list)
	}
	return c.JSON(list.Data)
}

func (h *handler) setACHAccount(c *fiber.Ctx) error {
	var req payouts.ACHAccountRequest
	if err := decode(c, &req); err != nil {
		return err
	}
	a, err := h.svc.SetACHAccount(c.UserContext(), appID(c), c.Params("app_id"), req)
	if err != nil {
		return err
	}
	return c.JSON(a)
}

func (h *handler) getACHAccount(c *fiber.Ctx) error {
	a, err := h.svc.ACHAccount(c.UserContext(), appID(c), c.Params("app_id"))
	if err != nil {
		return err
	}
	return c.JSON(a)
}

func (h *handler) setAppCompliance(c *fiber.Ctx) error {
	var req payouts.BusinessCompliance
	if err := decode(c, &req); err != nil {
		return err
	}
	a, err := h.svc.SetAppCompliance(c.UserContext(), appID(c), c.Params("app_id"), req)
	if err != nil {
		return err
	}
	return c.JSON(a)
}

func (h *handler) getAppCompliance(c *fiber.Ctx) error {
	a, err := h.svc.AppCompliance(c.UserContext(), appID(c), c.Params("app_id"))
	if err != nil {
		return err
	}
	return c.JSON(a)
}

// apiKeys answers GET /v2/apps/{app_id}/api-keys (extension api-keys): the app's keys, the
// request's own marked current.
func (h *handler) apiKeys(c *fiber.Ctx) error {
	p := currentPrincipal(c)
	keys, err := h.svc.APIKeys(c.UserContext(), p.AppID, c.Params("app_id"), p.KeyID)
	if err != nil {
		return err
	}
	return c.JSON(keys)
}

// createAPIKey answers 201 with a new key of the app, its secret shown this once.
func (h *handler) createAPIKey(c *fiber.Ctx) error {
	var req payouts.CreateAPIKeyRequest
	if err := decode(c, &req); err != nil {
		return err
	}
	p := currentPrincipal(c)
	k, err := h.svc.CreateAPIKey(c.UserContext(), p.AppID, c.Params("app_id"), p.KeyID, req)
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusCreated).JSON(k)
}

// revokeAPIKey stops a key of the app at once.
func (h *handler) revokeAPIKey(c *fiber.Ctx) error {
	p := currentPrincipal(c)
	k, err := h.svc.RevokeAPIKey(c.UserContext(), p.AppID, c.Params("app_id"), c.Params("key_id"), p.KeyID)
	if err != nil {
		return err
	}
	return c.JSON(k)
}
