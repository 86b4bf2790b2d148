-- A payee may withdraw their consent to electronic delivery (the IRS requires that they can): the
-- time they did, or 0 while the consent stands. Consenting again clears it.
ALTER TABLE tax_consents ADD COLUMN withdrawn BIGINT NOT NULL DEFAULT 0;
