CREATE TABLE "licences" (
	"tenant_id" uuid PRIMARY KEY NOT NULL,
	"plan" text NOT NULL,
	"seats" integer NOT NULL,
	"valid_until" timestamp with time zone,
	"status" text NOT NULL,
	"source" text NOT NULL,
	"reference" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "licences" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "licences" ADD CONSTRAINT "licences_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE POLICY "licences_tenant_isolation" ON "licences" AS PERMISSIVE FOR ALL TO "app_user" USING (tenant_id = nullif(current_setting('app.tenant_id', true), '')::uuid) WITH CHECK (tenant_id = nullif(current_setting('app.tenant_id', true), '')::uuid);