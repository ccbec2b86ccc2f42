-- A record with an external_id that matches no customer falls back to a customer with its phone or
-- e-mail and no external_id. These partial indexes hold only such customers, so that lookup is one
-- probe however many customers with external ids share the phone or e-mail (the full indexes would
-- walk all of them), and they cost nothing to keep for customers imported with external ids.
CREATE INDEX customers_phone_without_external_id ON customers (phone, customer_id) WHERE phone IS NOT NULL AND external_id IS NULL;
CREATE INDEX customers_email_without_external_id ON customers (email, customer_id) WHERE email IS NOT NULL AND external_id IS NULL;
