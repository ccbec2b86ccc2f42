-- An ORDER_SHIPPED event names the transaction it ships by sale_id; a sale shows its shipments,
-- found by this index (links are made when read).
CREATE INDEX customer_events_sale ON customer_events ((data->>'sale_id'), id) WHERE type = 'ORDER_SHIPPED' AND data ? 'sale_id';
