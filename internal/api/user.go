package api

import (
	"github.com/gofiber/fiber/v2"

	"github.com/disburse/disburse/payouts"
)

func (h *handler) createUser(c *fiber.Ctx) error {
	var req payouts.CreateUserRequest
	if err := decode(c, &req); err != nil {
		return err
	}
	u, err := h.svc.CreateUser(c.UserContext(), appID(c), req)
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusCreated).JSON(u)
}

func (h *handler) listUsers(c *fiber.Ctx) error {
	p, err := page(c)
	if err != nil {
		return err
	}
	f := payouts.UserFilter{Status: payouts.UserStatus(c.Query("status")), Search: c.Query("search")}
	list, err := h.svc.ListUsers(c.UserContext(), appID(c), p, f)
	if err != nil {
		return err
	}
	return c.JSON(list)
}

func (h *handler) getUser(c *fiber.Ctx) error {
	u, err := h.svc.GetUser(c.UserContext(), appID(c), c.Params("user_id"))
	if err != nil {
		return err
	}
	return c.JSON(u)
}

func (h *handler) getScreening(c *fiber.Ctx) error {
	s, err := h.svc.GetScreening(c.UserContext(), appID(c), c.Params("user_id"))
	if err != nil {
		return err
	}
	return c.JSON(s)
}

func (h *handler) updateUser(c *fiber.Ctx) error {
	var req payouts.UpdateUserRequest
	if err := decode(c, &req); err != nil {
		return err
	}
	u, err := h.svc.UpdateUser(c.UserContext(), appID(c), c.Params("user_id"), req)
	if err != nil {
		return err
	}
	return c.JSON(u)
}

func (h *handler) deleteUser(c *fiber.Ctx) error {
	u, err := h.svc.DeleteUser(c.UserContext(), appID(c), c.Params("user_id"))
	if err != nil {
		return err
	}
	return c.JSON(u)
}

// sendVerificationToken answers 202 with no body: the token is on its way.
func (h *handler) sendVerificationToken(c *fiber.Ctx) error {
	var req payouts.SendVerificationTokenRequest
	if err := decodeOptional(c, &req); err != nil {
		return err
	}
	if err := h.svc.SendVerificationToken(c.UserContext(), appID(c), c.Params("user_id"), req); err != nil {
		return err
	}
	return noContent(c, fiber.StatusAccepted)
}

// verifyUser answers 200 with no body.
func (h *handler) verifyUser(c *fiber.Ctx) error {
	var req payouts.VerifyUserRequest
	if err := decode(c, &req); err != nil {
		return err
	}
	if err := h.svc.VerifyUser(c.UserContext(), appID(c), c.Params("user_id"), req); err != nil {
		return err
	}
	return noContent(c, fiber.StatusOK)
}
