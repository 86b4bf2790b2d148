package api

import "github.com/gofiber/fiber/v2"

// idLookup answers GET /v2/id-lookup?prefix=, our extension: the objects whose ids begin with
// the prefix, as a short id in a list names them.
func (h *handler) idLookup(c *fiber.Ctx) error {
	found, err := h.svc.LookUpIDs(c.UserContext(), appID(c), c.Query("prefix"))
	if err != nil {
		return err
	}
	return c.JSON(found)
}
