-- The empty database the migrations make (SQLite), with the sandbox's id key.
-- Written by scripts/dump_sandbox_schema.py: do not edit; run it after adding a migration.
BEGIN TRANSACTION;
CREATE TABLE accounts (
	id INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, 
	name VARCHAR(255) NOT NULL, 
	currency VARCHAR(3) NOT NULL, 
	owner_id INTEGER NOT NULL, 
	suspended BOOLEAN NOT NULL, 
	location_count INTEGER NOT NULL, 
	created_at DATETIME NOT NULL, 
	CONSTRAINT fk_accounts_owner_id_users FOREIGN KEY(owner_id) REFERENCES users (id)
);
CREATE TABLE alembic_version (
	version_num VARCHAR(32) NOT NULL, 
	CONSTRAINT alembic_version_pkc PRIMARY KEY (version_num)
);
INSERT INTO "alembic_version" VALUES('0032');
CREATE TABLE authorization_codes (
	id INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, 
	code_hash VARCHAR(64) NOT NULL, 
	client_id INTEGER NOT NULL, 
	user_id INTEGER NOT NULL, 
	redirect_uri TEXT NOT NULL, 
	scope TEXT NOT NULL, 
	account_id INTEGER, 
	location_id INTEGER, 
	catalog_id INTEGER, 
	customer_list_id INTEGER, 
	name VARCHAR(255) NOT NULL, 
	code_challenge VARCHAR(128), 
	expires_at DATETIME NOT NULL, 
	used_at DATETIME, 
	created_at DATETIME NOT NULL, token_hash VARCHAR(64), 
	CONSTRAINT fk_authorization_codes_account_id_accounts FOREIGN KEY(account_id) REFERENCES accounts (id) ON DELETE CASCADE, 
	CONSTRAINT fk_authorization_codes_catalog_id_catalogs FOREIGN KEY(catalog_id) REFERENCES catalogs (id) ON DELETE CASCADE, 
	CONSTRAINT fk_authorization_codes_client_id_oauth_clients FOREIGN KEY(client_id) REFERENCES oauth_clients (id) ON DELETE CASCADE, 
	CONSTRAINT fk_authorization_codes_customer_list_id_customer_lists FOREIGN KEY(customer_list_id) REFERENCES customer_lists (id) ON DELETE CASCADE, 
	CONSTRAINT fk_authorization_codes_location_id_locations FOREIGN KEY(location_id) REFERENCES locations (id) ON DELETE CASCADE, 
	CONSTRAINT fk_authorization_codes_user_id_users FOREIGN KEY(user_id) REFERENCES users (id) ON DELETE CASCADE, 
	CONSTRAINT uq_authorization_codes_code_hash UNIQUE (code_hash)
);
CREATE TABLE browser_sessions (
	sid_hash VARCHAR(64) NOT NULL, 
	user_id INTEGER NOT NULL, 
	created_at DATETIME NOT NULL, 
	expires_at DATETIME NOT NULL, flash VARCHAR(100), 
	CONSTRAINT pk_browser_sessions PRIMARY KEY (sid_hash), 
	CONSTRAINT fk_browser_sessions_user_id_users FOREIGN KEY(user_id) REFERENCES users (id) ON DELETE CASCADE
);
CREATE TABLE cache_stamps (
	name VARCHAR(64) NOT NULL, 
	stamp BIGINT NOT NULL, 
	CONSTRAINT pk_cache_stamps PRIMARY KEY (name)
);
CREATE TABLE callback_subscriptions (
	connection_id INTEGER NOT NULL, 
	resource_type VARCHAR(32) NOT NULL, 
	event_type VARCHAR(16) NOT NULL, 
	CONSTRAINT pk_callback_subscriptions PRIMARY KEY (connection_id, resource_type, event_type), 
	CONSTRAINT fk_callback_subscriptions_connection_id_callbacks FOREIGN KEY(connection_id) REFERENCES callbacks (connection_id) ON DELETE CASCADE
);
CREATE TABLE callbacks (
	connection_id INTEGER NOT NULL, 
	url TEXT, 
	events JSON NOT NULL, 
	created_at DATETIME NOT NULL, 
	updated_at DATETIME NOT NULL, 
	lease_owner VARCHAR(80), 
	leased_until DATETIME, signing_secret BLOB, previous_secret BLOB, previous_secret_expires_at DATETIME, failing_since DATETIME, disabled_at DATETIME, disabled_reason TEXT, 
	CONSTRAINT pk_callbacks PRIMARY KEY (connection_id), 
	CONSTRAINT fk_callbacks_connection_id_connections FOREIGN KEY(connection_id) REFERENCES connections (id) ON DELETE CASCADE
);
CREATE TABLE catalog_contents (
	catalog_id INTEGER NOT NULL, 
	data TEXT NOT NULL, 
	tag BIGINT NOT NULL, 
	sku_refs JSON NOT NULL, 
	option_refs JSON NOT NULL, 
	image_ids JSON NOT NULL, 
	updated_at DATETIME NOT NULL, 
	CONSTRAINT pk_catalog_contents PRIMARY KEY (catalog_id), 
	CONSTRAINT fk_catalog_contents_catalog_id_catalogs FOREIGN KEY(catalog_id) REFERENCES catalogs (id) ON DELETE CASCADE
);
CREATE TABLE catalog_images (
	id INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, 
	catalog_id INTEGER NOT NULL, 
	type VARCHAR(16) NOT NULL, 
	size INTEGER NOT NULL, 
	md5 VARCHAR(32) NOT NULL, 
	created_at DATETIME NOT NULL, store VARCHAR(16) DEFAULT 'database' NOT NULL, 
	CONSTRAINT fk_catalog_images_catalog_id_catalogs FOREIGN KEY(catalog_id) REFERENCES catalogs (id) ON DELETE CASCADE
);
CREATE TABLE catalog_items (
	kind VARCHAR(16) NOT NULL, 
	id BIGINT NOT NULL, 
	catalog_id INTEGER NOT NULL, 
	position INTEGER NOT NULL, 
	body TEXT NOT NULL, 
	CONSTRAINT pk_catalog_items PRIMARY KEY (kind, id), 
	CONSTRAINT fk_catalog_items_catalog_id_catalogs FOREIGN KEY(catalog_id) REFERENCES catalogs (id) ON DELETE CASCADE
);
CREATE TABLE "catalogs" (
	id INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, 
	name VARCHAR(255) NOT NULL, 
	account_id INTEGER NOT NULL, 
	location_id INTEGER, 
	created_at DATETIME NOT NULL, 
	CONSTRAINT fk_catalogs_account_id_accounts FOREIGN KEY(account_id) REFERENCES accounts (id), 
	CONSTRAINT fk_catalogs_location_id_locations FOREIGN KEY(location_id) REFERENCES locations (id), 
	CONSTRAINT uq_catalogs_location_id_name UNIQUE (location_id, name)
);
CREATE TABLE change_people (
	change_id INTEGER NOT NULL, 
	user_id INTEGER NOT NULL, 
	CONSTRAINT pk_change_people PRIMARY KEY (change_id), 
	CONSTRAINT fk_change_people_change_id_changes FOREIGN KEY(change_id) REFERENCES changes (id) ON DELETE CASCADE, 
	CONSTRAINT fk_change_people_user_id_users FOREIGN KEY(user_id) REFERENCES users (id) ON DELETE CASCADE
);
CREATE TABLE "changes" (
	id INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, 
	origin_connection_id INTEGER, 
	created_at DATETIME NOT NULL, 
	resource_type VARCHAR(32) NOT NULL, 
	event_type VARCHAR(16) NOT NULL, 
	ids JSON NOT NULL, 
	timezone VARCHAR(64) NOT NULL, 
	account_id INTEGER NOT NULL, 
	location_id INTEGER, 
	catalog_id INTEGER, 
	customer_list_id INTEGER, 
	previous_state JSON, 
	new_state JSON, 
	state_change JSON, 
	connection_id INTEGER, 
	client_id INTEGER
, traceparent VARCHAR(55));
CREATE TABLE "connections" (
	id INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, 
	client_id INTEGER NOT NULL, 
	user_id INTEGER NOT NULL, 
	level VARCHAR(10) NOT NULL, 
	target VARCHAR(40) NOT NULL, 
	account_id INTEGER, 
	location_id INTEGER, 
	catalog_id INTEGER, 
	customer_list_id INTEGER, 
	name VARCHAR(255) NOT NULL, 
	scope TEXT NOT NULL, 
	token_seed VARCHAR(512) NOT NULL, 
	token_hash VARCHAR(64) NOT NULL, 
	revoked_at DATETIME, 
	blocked BOOLEAN NOT NULL, 
	created_at DATETIME NOT NULL, 
	updated_at DATETIME NOT NULL, 
	last_used_at DATETIME, 
	CONSTRAINT fk_connections_location_id_locations FOREIGN KEY(location_id) REFERENCES locations (id), 
	CONSTRAINT fk_connections_customer_list_id_customer_lists FOREIGN KEY(customer_list_id) REFERENCES customer_lists (id) ON DELETE SET NULL, 
	CONSTRAINT fk_connections_user_id_users FOREIGN KEY(user_id) REFERENCES users (id), 
	CONSTRAINT fk_connections_client_id_oauth_clients FOREIGN KEY(client_id) REFERENCES oauth_clients (id) ON DELETE CASCADE, 
	CONSTRAINT uq_connections_client_id_target_name UNIQUE (client_id, target, name), 
	CONSTRAINT fk_connections_catalog_id_catalogs FOREIGN KEY(catalog_id) REFERENCES catalogs (id) ON DELETE SET NULL, 
	CONSTRAINT uq_connections_token_hash UNIQUE (token_hash), 
	CONSTRAINT fk_connections_account_id_accounts FOREIGN KEY(account_id) REFERENCES accounts (id)
);
CREATE TABLE "customer_lists" (
	id INTEGER NOT NULL, 
	name VARCHAR(255) NOT NULL, 
	account_id INTEGER NOT NULL, 
	location_id INTEGER, 
	created_at DATETIME NOT NULL, 
	PRIMARY KEY (id AUTOINCREMENT), 
	CONSTRAINT fk_customer_lists_account_id_accounts FOREIGN KEY(account_id) REFERENCES accounts (id), 
	CONSTRAINT fk_customer_lists_location_id_locations FOREIGN KEY(location_id) REFERENCES locations (id), 
	CONSTRAINT uq_customer_lists_location_id_name UNIQUE (location_id, name)
);
CREATE TABLE customers (
	id INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, 
	customer_list_id INTEGER NOT NULL, 
	email VARCHAR(255), 
	email_lower VARCHAR(255), 
	first_name VARCHAR(255), 
	last_name VARCHAR(255), 
	gender VARCHAR(6), 
	birth_date DATE, 
	company_name VARCHAR(255), 
	phone VARCHAR(64), 
	phone_access_code VARCHAR(64), 
	address_1 VARCHAR(1000), 
	address_2 VARCHAR(1000), 
	postal_code VARCHAR(32), 
	city VARCHAR(255), 
	state VARCHAR(255), 
	country VARCHAR(2), 
	latitude VARCHAR(100), 
	longitude VARCHAR(100), 
	delivery_notes TEXT, 
	sms_marketing BOOLEAN NOT NULL, 
	email_marketing BOOLEAN NOT NULL, 
	custom_fields JSON NOT NULL, 
	anonymised BOOLEAN NOT NULL, 
	nb_orders INTEGER NOT NULL, 
	order_total VARCHAR(100) NOT NULL, 
	first_order_at DATETIME, 
	last_order_at DATETIME, 
	created_at DATETIME NOT NULL, 
	updated_at DATETIME NOT NULL, 
	CONSTRAINT fk_customers_customer_list_id_customer_lists FOREIGN KEY(customer_list_id) REFERENCES customer_lists (id) ON DELETE CASCADE
);
CREATE TABLE deliveries (
	id INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, 
	order_id INTEGER NOT NULL, 
	carrier VARCHAR(255) NOT NULL, 
	carrier_ref VARCHAR(255), 
	ref VARCHAR(255), 
	status VARCHAR(32) NOT NULL, 
	fee VARCHAR(64), 
	estimated_pickup_at DATETIME, 
	estimated_dropoff_at DATETIME, 
	tracking_url TEXT, 
	driver_name VARCHAR(255), 
	driver_phone VARCHAR(64), 
	driver_phone_access_code VARCHAR(64), 
	driver_latitude VARCHAR(100), 
	driver_longitude VARCHAR(100), 
	driver_pickup_url TEXT, 
	assigned_at DATETIME, 
	pickup_at DATETIME, 
	delivered_at DATETIME, 
	cancelled_at DATETIME, 
	driver_position_updated_at DATETIME, 
	created_at DATETIME NOT NULL, 
	updated_at DATETIME NOT NULL, 
	CONSTRAINT fk_deliveries_order_id_orders FOREIGN KEY(order_id) REFERENCES orders (id) ON DELETE CASCADE, 
	CONSTRAINT uq_deliveries_order_id UNIQUE (order_id)
);
CREATE TABLE delivery_attempts (
	id INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, 
	connection_id INTEGER NOT NULL, 
	event_id INTEGER NOT NULL, 
	attempt INTEGER NOT NULL, 
	attempted_at DATETIME NOT NULL, 
	duration_ms INTEGER NOT NULL, 
	url TEXT NOT NULL, 
	status_code INTEGER, 
	error VARCHAR(80), 
	response_excerpt TEXT, 
	outcome VARCHAR(16) NOT NULL, response_bytes INTEGER, 
	CONSTRAINT fk_delivery_attempts_connection_id_connections FOREIGN KEY(connection_id) REFERENCES connections (id) ON DELETE CASCADE
);
CREATE TABLE delivery_quotes (
	id INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, 
	order_id INTEGER NOT NULL, 
	carrier VARCHAR(255) NOT NULL, 
	carrier_ref VARCHAR(255), 
	ref VARCHAR(255), 
	fee VARCHAR(64) NOT NULL, 
	estimated_pickup_at DATETIME, 
	estimated_dropoff_at DATETIME, 
	accepted_at DATETIME, 
	created_at DATETIME NOT NULL, 
	CONSTRAINT fk_delivery_quotes_order_id_orders FOREIGN KEY(order_id) REFERENCES orders (id) ON DELETE CASCADE
);
CREATE TABLE "events" (
	id INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, 
	connection_id INTEGER NOT NULL, 
	change_id INTEGER NOT NULL, 
	resource_type VARCHAR(32) NOT NULL, 
	event_type VARCHAR(16) NOT NULL, 
	created_at DATETIME NOT NULL, 
	attempts INTEGER NOT NULL, 
	next_attempt_at DATETIME, 
	done_at DATETIME, 
	redelivery BOOLEAN DEFAULT 0 NOT NULL, 
	CONSTRAINT fk_events_connection_id_connections FOREIGN KEY(connection_id) REFERENCES connections (id) ON DELETE CASCADE, 
	CONSTRAINT fk_events_change_id_changes FOREIGN KEY(change_id) REFERENCES changes (id) ON DELETE CASCADE
);
CREATE TABLE id_counters (
	name VARCHAR(64) NOT NULL, 
	value BIGINT NOT NULL, 
	CONSTRAINT pk_id_counters PRIMARY KEY (name)
);
CREATE TABLE idempotency_keys (
	connection_id INTEGER NOT NULL, 
	"key" VARCHAR(255) NOT NULL, 
	request_hash VARCHAR(64) NOT NULL, 
	response TEXT NOT NULL, 
	created_at DATETIME NOT NULL, 
	CONSTRAINT pk_idempotency_keys PRIMARY KEY (connection_id, "key"), 
	CONSTRAINT fk_idempotency_keys_connection_id_connections FOREIGN KEY(connection_id) REFERENCES connections (id) ON DELETE CASCADE
);
CREATE TABLE image_data (
	image_id INTEGER NOT NULL, 
	data BLOB NOT NULL, 
	CONSTRAINT pk_image_data PRIMARY KEY (image_id), 
	CONSTRAINT fk_image_data_image_id_catalog_images FOREIGN KEY(image_id) REFERENCES catalog_images (id) ON DELETE CASCADE
);
CREATE TABLE installation (
	id_key VARCHAR(64) NOT NULL, 
	CONSTRAINT pk_installation PRIMARY KEY (id_key)
);
INSERT INTO "installation" VALUES('sandbox');
CREATE TABLE inventory_entries (
	catalog_id INTEGER NOT NULL, 
	location_id INTEGER NOT NULL, 
	kind VARCHAR(8) NOT NULL, 
	ref VARCHAR(255) NOT NULL, 
	stock VARCHAR(100) NOT NULL, 
	expires_at DATETIME, 
	CONSTRAINT pk_inventory_entries PRIMARY KEY (catalog_id, location_id, kind, ref), 
	CONSTRAINT fk_inventory_entries_catalog_id_catalogs FOREIGN KEY(catalog_id) REFERENCES catalogs (id) ON DELETE CASCADE, 
	CONSTRAINT fk_inventory_entries_location_id_locations FOREIGN KEY(location_id) REFERENCES locations (id) ON DELETE CASCADE
);
CREATE TABLE locations (
	id INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, 
	account_id INTEGER NOT NULL, 
	number INTEGER NOT NULL, 
	name VARCHAR(255) NOT NULL, 
	address TEXT, 
	postal_code VARCHAR(32), 
	city VARCHAR(255), 
	country VARCHAR(2) NOT NULL, 
	timezone VARCHAR(64) NOT NULL, 
	cutoff_time VARCHAR(5) NOT NULL, 
	opening_hours JSON, 
	preparation_time INTEGER NOT NULL, 
	acceptance_mode VARCHAR(10) NOT NULL, 
	acceptance_resume_at DATETIME, 
	acceptance_extra_preparation_time INTEGER, 
	acceptance_reason TEXT, 
	custom_fields JSON NOT NULL, 
	created_at DATETIME NOT NULL, 
	updated_at DATETIME NOT NULL, 
	CONSTRAINT fk_locations_account_id_accounts FOREIGN KEY(account_id) REFERENCES accounts (id), 
	CONSTRAINT uq_locations_account_id_number UNIQUE (account_id, number)
);
CREATE TABLE loyalty_cards (
	id INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, 
	customer_list_id INTEGER NOT NULL, 
	customer_id INTEGER NOT NULL, 
	name VARCHAR(255), 
	ref VARCHAR(255), 
	balance VARCHAR(100) NOT NULL, 
	created_at DATETIME NOT NULL, 
	CONSTRAINT fk_loyalty_cards_customer_id_customers FOREIGN KEY(customer_id) REFERENCES customers (id) ON DELETE CASCADE, 
	CONSTRAINT fk_loyalty_cards_customer_list_id_customer_lists FOREIGN KEY(customer_list_id) REFERENCES customer_lists (id) ON DELETE CASCADE, 
	CONSTRAINT uq_loyalty_cards_customer_id_ref UNIQUE (customer_id, ref)
);
CREATE TABLE loyalty_operations (
	id INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, 
	loyalty_card_id INTEGER NOT NULL, 
	customer_id INTEGER NOT NULL, 
	delta VARCHAR(100) NOT NULL, 
	new_balance VARCHAR(100) NOT NULL, 
	reason TEXT, 
	order_id INTEGER, 
	order_location_id INTEGER, 
	created_at DATETIME NOT NULL, 
	CONSTRAINT fk_loyalty_operations_customer_id_customers FOREIGN KEY(customer_id) REFERENCES customers (id) ON DELETE CASCADE, 
	CONSTRAINT fk_loyalty_operations_loyalty_card_id_loyalty_cards FOREIGN KEY(loyalty_card_id) REFERENCES loyalty_cards (id) ON DELETE CASCADE, 
	CONSTRAINT fk_loyalty_operations_order_location_id_locations FOREIGN KEY(order_location_id) REFERENCES locations (id) ON DELETE SET NULL
);
CREATE TABLE name_claims (
	kind VARCHAR(16) NOT NULL, 
	account_id INTEGER NOT NULL, 
	name VARCHAR(255) NOT NULL, 
	account_level BOOLEAN NOT NULL, 
	holders INTEGER NOT NULL, 
	CONSTRAINT pk_name_claims PRIMARY KEY (kind, account_id, name), 
	CONSTRAINT fk_name_claims_account_id_accounts FOREIGN KEY(account_id) REFERENCES accounts (id) ON DELETE CASCADE
);
CREATE TABLE notices (
	id INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, 
	account_id INTEGER NOT NULL, 
	connection_id INTEGER, 
	created_at DATETIME NOT NULL, 
	text TEXT NOT NULL, 
	dismissed_at DATETIME, 
	CONSTRAINT fk_notices_account_id_accounts FOREIGN KEY(account_id) REFERENCES accounts (id) ON DELETE CASCADE, 
	CONSTRAINT fk_notices_connection_id_connections FOREIGN KEY(connection_id) REFERENCES connections (id) ON DELETE CASCADE
);
CREATE TABLE "oauth_clients" (
	id INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, 
	name VARCHAR(255) NOT NULL, 
	secret_seed VARCHAR(512) NOT NULL, 
	redirect_uris JSON NOT NULL, 
	owner_id INTEGER, 
	created_at DATETIME NOT NULL, 
	CONSTRAINT fk_oauth_clients_owner_id_users FOREIGN KEY(owner_id) REFERENCES users (id)
);
CREATE TABLE "orders" (
	id INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, 
	account_id INTEGER NOT NULL, 
	location_id INTEGER NOT NULL, 
	status VARCHAR(32) NOT NULL, 
	created_by VARCHAR(255) NOT NULL, 
	client_id INTEGER, 
	connection_id INTEGER, 
	customer_id INTEGER, 
	total VARCHAR(100) NOT NULL, 
	body JSON NOT NULL, 
	refs JSON NOT NULL, 
	created_at DATETIME NOT NULL, 
	updated_at DATETIME NOT NULL, 
	"view" JSON, 
	CONSTRAINT fk_orders_customer_id_customers FOREIGN KEY(customer_id) REFERENCES customers (id) ON DELETE SET NULL, 
	CONSTRAINT fk_orders_location_id_locations FOREIGN KEY(location_id, account_id) REFERENCES locations (id, account_id), 
	CONSTRAINT fk_orders_connection_id_connections FOREIGN KEY(connection_id, client_id) REFERENCES connections (id, client_id) ON DELETE SET NULL, 
	CONSTRAINT ck_orders_client_with_connection CHECK (client_id IS NULL OR connection_id IS NOT NULL)
);
CREATE TABLE private_refs (
	resource_type VARCHAR(32) NOT NULL, 
	resource_id INTEGER NOT NULL, 
	client_id INTEGER NOT NULL, 
	ref VARCHAR(255) NOT NULL, scope_id INTEGER, 
	CONSTRAINT pk_private_refs PRIMARY KEY (resource_type, resource_id, client_id), 
	CONSTRAINT fk_private_refs_client_id_oauth_clients FOREIGN KEY(client_id) REFERENCES oauth_clients (id) ON DELETE CASCADE
);
CREATE TABLE request_logs (
	id INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, 
	connection_id INTEGER NOT NULL, 
	at DATETIME NOT NULL, 
	request_id VARCHAR(128) NOT NULL, 
	method VARCHAR(10) NOT NULL, 
	path TEXT NOT NULL, 
	status INTEGER NOT NULL, 
	duration_ms INTEGER NOT NULL, 
	request_body TEXT NOT NULL, 
	request_bytes INTEGER NOT NULL, 
	response_body TEXT NOT NULL, 
	response_bytes INTEGER NOT NULL, 
	CONSTRAINT fk_request_logs_connection_id_connections FOREIGN KEY(connection_id) REFERENCES connections (id) ON DELETE CASCADE
);
CREATE TABLE server_key_wraps (
	id INTEGER NOT NULL, 
	wrapped BLOB NOT NULL, 
	created_at DATETIME NOT NULL, 
	CONSTRAINT pk_server_key_wraps PRIMARY KEY (id)
);
CREATE TABLE users (
	id INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, 
	email VARCHAR(254) NOT NULL, 
	password_hash TEXT NOT NULL, 
	first_name VARCHAR(255), 
	last_name VARCHAR(255), 
	timezone VARCHAR(64) NOT NULL, 
	locales JSON NOT NULL, 
	created_at DATETIME NOT NULL, 
	CONSTRAINT uq_users_email UNIQUE (email)
);
CREATE INDEX ix_accounts_owner_id ON accounts (owner_id);
CREATE INDEX ix_locations_acceptance_resume_at ON locations (acceptance_resume_at);
CREATE INDEX ix_private_refs_lookup ON private_refs (client_id, resource_type, ref);
CREATE INDEX ix_delivery_attempts_attempted_at ON delivery_attempts (attempted_at);
CREATE INDEX ix_delivery_attempts_connection ON delivery_attempts (connection_id, id);
CREATE INDEX ix_callback_subscriptions_lookup ON callback_subscriptions (resource_type, event_type, connection_id);
CREATE INDEX ix_customers_email ON customers (customer_list_id, email_lower, id);
CREATE INDEX ix_customers_list ON customers (customer_list_id, id);
CREATE INDEX ix_customers_phone ON customers (customer_list_id, phone, id);
CREATE INDEX ix_loyalty_cards_list ON loyalty_cards (customer_list_id, id);
CREATE UNIQUE INDEX uq_loyalty_cards_null_ref ON loyalty_cards (customer_id) WHERE ref IS NULL;
CREATE INDEX ix_loyalty_operations_card ON loyalty_operations (loyalty_card_id, id);
CREATE INDEX ix_loyalty_operations_customer_id ON loyalty_operations (customer_id);
CREATE INDEX ix_customer_lists_location_id ON customer_lists (location_id);
CREATE INDEX ix_customer_lists_account_id ON customer_lists (account_id);
CREATE UNIQUE INDEX uq_private_refs_scoped ON private_refs (resource_type, client_id, scope_id, ref);
CREATE INDEX ix_idempotency_keys_created_at ON idempotency_keys (created_at);
CREATE INDEX ix_delivery_quotes_order ON delivery_quotes (order_id, id);
CREATE INDEX ix_authorization_codes_client_id ON authorization_codes (client_id);
CREATE INDEX ix_authorization_codes_expires_at ON authorization_codes (expires_at);
CREATE INDEX ix_authorization_codes_user_id ON authorization_codes (user_id);
CREATE INDEX ix_catalogs_location_id ON catalogs (location_id);
CREATE INDEX ix_catalogs_account_id ON catalogs (account_id);
CREATE INDEX ix_catalog_items_listing ON catalog_items (catalog_id, kind, position);
CREATE INDEX ix_inventory_entries_expiry ON inventory_entries (expires_at);
CREATE INDEX ix_catalog_images_catalog_id ON catalog_images (catalog_id);
CREATE INDEX ix_catalog_images_created_at ON catalog_images (created_at);
CREATE INDEX ix_request_logs_at ON request_logs (at);
CREATE INDEX ix_request_logs_connection ON request_logs (connection_id, id);
CREATE INDEX ix_browser_sessions_expires_at ON browser_sessions (expires_at);
CREATE INDEX ix_browser_sessions_user_id ON browser_sessions (user_id);
CREATE INDEX ix_changes_created_at ON changes (created_at);
CREATE UNIQUE INDEX uq_locations_id_account_id ON locations (id, account_id);
CREATE INDEX ix_orders_location_created_by ON orders (location_id, created_by, created_at, id);
CREATE INDEX ix_orders_customer ON orders (customer_id, created_at, id);
CREATE INDEX ix_orders_location_status ON orders (location_id, status, created_at, id);
CREATE INDEX ix_orders_location ON orders (location_id, created_at, id);
CREATE INDEX ix_orders_account ON orders (account_id, created_at, id);
CREATE INDEX ix_events_connection ON events (connection_id, id);
CREATE INDEX ix_events_change_id ON events (change_id);
CREATE INDEX ix_events_due ON events (connection_id, next_attempt_at);
CREATE INDEX ix_events_pending ON events (connection_id, id) WHERE done_at IS NULL;
CREATE INDEX ix_events_done ON events (done_at) WHERE done_at IS NOT NULL;
CREATE INDEX ix_notices_account ON notices (account_id, id);
CREATE INDEX ix_change_people_user_id ON change_people (user_id);
CREATE INDEX ix_connections_location_id ON connections (location_id);
CREATE INDEX ix_connections_catalog_id ON connections (catalog_id);
CREATE INDEX ix_connections_customer_list_id ON connections (customer_list_id);
CREATE INDEX ix_connections_account_id ON connections (account_id);
CREATE UNIQUE INDEX uq_connections_id_client_id ON connections (id, client_id);
CREATE INDEX ix_connections_user_id ON connections (user_id);
CREATE INDEX ix_oauth_clients_owner_id ON oauth_clients (owner_id);
CREATE INDEX ix_events_queue ON events (connection_id, created_at, id) WHERE next_attempt_at IS NOT NULL;
CREATE TRIGGER connections_update_stamp AFTER UPDATE OF client_id, user_id, level, account_id, location_id, catalog_id, customer_list_id, name, scope, token_hash, revoked_at, blocked ON connections BEGIN INSERT INTO cache_stamps (name, stamp) VALUES ('connections', random()) ON CONFLICT (name) DO UPDATE SET stamp = excluded.stamp; END;
CREATE TRIGGER connections_delete_stamp AFTER DELETE ON connections BEGIN INSERT INTO cache_stamps (name, stamp) VALUES ('connections', random()) ON CONFLICT (name) DO UPDATE SET stamp = excluded.stamp; END;
CREATE TRIGGER oauth_clients_update_stamp AFTER UPDATE ON oauth_clients BEGIN INSERT INTO cache_stamps (name, stamp) VALUES ('connections', random()) ON CONFLICT (name) DO UPDATE SET stamp = excluded.stamp; END;
CREATE TRIGGER oauth_clients_delete_stamp AFTER DELETE ON oauth_clients BEGIN INSERT INTO cache_stamps (name, stamp) VALUES ('connections', random()) ON CONFLICT (name) DO UPDATE SET stamp = excluded.stamp; END;
CREATE TRIGGER accounts_update_stamp AFTER UPDATE ON accounts BEGIN INSERT INTO cache_stamps (name, stamp) VALUES ('connections', random()) ON CONFLICT (name) DO UPDATE SET stamp = excluded.stamp; END;
CREATE TRIGGER accounts_delete_stamp AFTER DELETE ON accounts BEGIN INSERT INTO cache_stamps (name, stamp) VALUES ('connections', random()) ON CONFLICT (name) DO UPDATE SET stamp = excluded.stamp; END;
CREATE TRIGGER locations_update_stamp AFTER UPDATE ON locations BEGIN INSERT INTO cache_stamps (name, stamp) VALUES ('connections', random()) ON CONFLICT (name) DO UPDATE SET stamp = excluded.stamp; END;
CREATE TRIGGER locations_delete_stamp AFTER DELETE ON locations BEGIN INSERT INTO cache_stamps (name, stamp) VALUES ('connections', random()) ON CONFLICT (name) DO UPDATE SET stamp = excluded.stamp; END;
CREATE TRIGGER callback_subscriptions_insert_stamp AFTER INSERT ON callback_subscriptions BEGIN INSERT INTO cache_stamps (name, stamp) VALUES ('connections', random()) ON CONFLICT (name) DO UPDATE SET stamp = excluded.stamp; END;
CREATE TRIGGER callback_subscriptions_update_stamp AFTER UPDATE ON callback_subscriptions BEGIN INSERT INTO cache_stamps (name, stamp) VALUES ('connections', random()) ON CONFLICT (name) DO UPDATE SET stamp = excluded.stamp; END;
CREATE TRIGGER callback_subscriptions_delete_stamp AFTER DELETE ON callback_subscriptions BEGIN INSERT INTO cache_stamps (name, stamp) VALUES ('connections', random()) ON CONFLICT (name) DO UPDATE SET stamp = excluded.stamp; END;
DELETE FROM "sqlite_sequence";
INSERT INTO "sqlite_sequence" VALUES('customers',0);
INSERT INTO "sqlite_sequence" VALUES('loyalty_cards',0);
INSERT INTO "sqlite_sequence" VALUES('loyalty_operations',0);
INSERT INTO "sqlite_sequence" VALUES('catalogs',0);
INSERT INTO "sqlite_sequence" VALUES('authorization_codes',0);
INSERT INTO "sqlite_sequence" VALUES('changes',0);
INSERT INTO "sqlite_sequence" VALUES('orders',0);
INSERT INTO "sqlite_sequence" VALUES('deliveries',0);
INSERT INTO "sqlite_sequence" VALUES('delivery_quotes',0);
INSERT INTO "sqlite_sequence" VALUES('customer_lists',0);
INSERT INTO "sqlite_sequence" VALUES('events',0);
INSERT INTO "sqlite_sequence" VALUES('connections',0);
INSERT INTO "sqlite_sequence" VALUES('delivery_attempts',0);
INSERT INTO "sqlite_sequence" VALUES('request_logs',0);
INSERT INTO "sqlite_sequence" VALUES('notices',0);
INSERT INTO "sqlite_sequence" VALUES('oauth_clients',0);
COMMIT;
