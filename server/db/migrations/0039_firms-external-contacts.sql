CREATE TABLE "party_contacts" (
	"tenant_id" uuid NOT NULL,
	"id" uuid DEFAULT gen_random_uuid() NOT NULL,
	"party_id" uuid NOT NULL,
	"name" text NOT NULL,
	"company" text DEFAULT '' NOT NULL,
	"email" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "party_contacts_tenant_id_id_pk" PRIMARY KEY("tenant_id","id")
);
--> statement-breakpoint
ALTER TABLE "party_contacts" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "transmittal_link_events" (
	"tenant_id" uuid NOT NULL,
	"id" uuid DEFAULT gen_random_uuid() NOT NULL,
	"link_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"revision_id" uuid,
	"at" timestamp with time zone NOT NULL,
	CONSTRAINT "transmittal_link_events_tenant_id_id_pk" PRIMARY KEY("tenant_id","id")
);
--> statement-breakpoint
ALTER TABLE "transmittal_link_events" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "transmittal_links" (
	"tenant_id" uuid NOT NULL,
	"id" uuid DEFAULT gen_random_uuid() NOT NULL,
	"transmittal_id" uuid NOT NULL,
	"contact_id" uuid,
	"party_id" uuid,
	"name" text NOT NULL,
	"company" text DEFAULT '' NOT NULL,
	"email" text NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"expires_at" timestamp with time zone,
	"revoked_at" timestamp with time zone,
	"revoked_by" uuid,
	"opened_at" timestamp with time zone,
	"downloaded_at" timestamp with time zone,
	"views" integer DEFAULT 0 NOT NULL,
	"downloads" integer DEFAULT 0 NOT NULL,
	"acknowledged_at" timestamp with time zone,
	"responded_at" timestamp with time zone,
	"response" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "transmittal_links_tenant_id_id_pk" PRIMARY KEY("tenant_id","id")
);
--> statement-breakpoint
ALTER TABLE "transmittal_links" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "party_contacts" ADD CONSTRAINT "party_contacts_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "party_contacts" ADD CONSTRAINT "party_contacts_tenant_id_party_id_project_parties_tenant_id_id_fk" FOREIGN KEY ("tenant_id","party_id") REFERENCES "public"."project_parties"("tenant_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "transmittal_link_events" ADD CONSTRAINT "transmittal_link_events_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "transmittal_link_events" ADD CONSTRAINT "transmittal_link_events_tenant_id_link_id_transmittal_links_tenant_id_id_fk" FOREIGN KEY ("tenant_id","link_id") REFERENCES "public"."transmittal_links"("tenant_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "transmittal_links" ADD CONSTRAINT "transmittal_links_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "transmittal_links" ADD CONSTRAINT "transmittal_links_revoked_by_users_id_fk" FOREIGN KEY ("revoked_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "transmittal_links" ADD CONSTRAINT "transmittal_links_tenant_id_transmittal_id_transmittals_tenant_id_id_fk" FOREIGN KEY ("tenant_id","transmittal_id") REFERENCES "public"."transmittals"("tenant_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "party_contacts_email_idx" ON "party_contacts" USING btree ("tenant_id","party_id",lower("email"));--> statement-breakpoint
CREATE INDEX "transmittal_link_events_link_idx" ON "transmittal_link_events" USING btree ("tenant_id","link_id","at");--> statement-breakpoint
CREATE UNIQUE INDEX "transmittal_links_email_idx" ON "transmittal_links" USING btree ("tenant_id","transmittal_id",lower("email"));--> statement-breakpoint
CREATE POLICY "party_contacts_tenant_isolation" ON "party_contacts" AS PERMISSIVE FOR ALL TO "app_user" USING (tenant_id = nullif(current_setting('app.tenant_id', true), '')::uuid) WITH CHECK (tenant_id = nullif(current_setting('app.tenant_id', true), '')::uuid);--> statement-breakpoint
CREATE POLICY "transmittal_link_events_tenant_isolation" ON "transmittal_link_events" AS PERMISSIVE FOR ALL TO "app_user" USING (tenant_id = nullif(current_setting('app.tenant_id', true), '')::uuid) WITH CHECK (tenant_id = nullif(current_setting('app.tenant_id', true), '')::uuid);--> statement-breakpoint
CREATE POLICY "transmittal_links_tenant_isolation" ON "transmittal_links" AS PERMISSIVE FOR ALL TO "app_user" USING (tenant_id = nullif(current_setting('app.tenant_id', true), '')::uuid) WITH CHECK (tenant_id = nullif(current_setting('app.tenant_id', true), '')::uuid);--> statement-breakpoint
-- Issue 32: the new tenant tables force row-level security (the owner is bound too), like every other (0037).
ALTER TABLE "party_contacts" FORCE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "transmittal_links" FORCE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "transmittal_link_events" FORCE ROW LEVEL SECURITY;
