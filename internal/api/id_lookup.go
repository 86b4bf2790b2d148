package api

import "github.com/gofiber/fiber/v2"

// idLookup answers GET /v2/id-lookup?id=, our extension: the objects a short id in a list names,
// or whose ids begin with the text.
func (h *handler) idLookup(c *fiber.Ctx) error {
	found, err := h.svc.LookUpIDs(c.UserContext(), appID(c), c.Query("id"))
	if err != nil {
		return err
	}
	return c.JSON(found)
}
