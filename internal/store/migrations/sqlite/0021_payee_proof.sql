-- A payee who identifies on a hosted page proves one contact (the one their code goes to) and
-- types the other. unproven_contact names the typed one ('phone' or 'email'; '' when the
-- operator gave both, or the payee proved both), so that looking a payee up by that contact
-- passes this user by: a payee is only who a proven contact says (service.FindOrCreatePayee).
ALTER TABLE users ADD COLUMN unproven_contact TEXT NOT NULL DEFAULT '';
CREATE INDEX users_phone ON users (app_id, country_code, phone_number) WHERE deleted_at IS NULL;
