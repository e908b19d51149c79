CREATE TABLE "frontend_errors" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid,
	"user_id" uuid,
	"visitor_id" text,
	"name" text NOT NULL,
	"message" text NOT NULL,
	"stack" text,
	"path" text,
	"user_agent" text,
	"release" text,
	"fingerprint" text NOT NULL,
	"occurred_at" timestamp with time zone NOT NULL,
	"received_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "frontend_errors" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "telemetry_events" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid,
	"user_id" uuid,
	"visitor_id" text,
	"name" text NOT NULL,
	"properties" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"source" text NOT NULL,
	"occurred_at" timestamp with time zone NOT NULL,
	"received_at" timestamp with time zone DEFAULT now() NOT NULL,
	"correlation_id" text
);
--> statement-breakpoint
ALTER TABLE "telemetry_events" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "telemetry_ingest_counts" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid,
	"day" date NOT NULL,
	"kind" text NOT NULL,
	"outcome" text NOT NULL,
	"count" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "telemetry_ingest_counts_key" UNIQUE NULLS NOT DISTINCT("tenant_id","day","kind","outcome")
);
--> statement-breakpoint
ALTER TABLE "telemetry_ingest_counts" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "frontend_errors" ADD CONSTRAINT "frontend_errors_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "telemetry_events" ADD CONSTRAINT "telemetry_events_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "telemetry_ingest_counts" ADD CONSTRAINT "telemetry_ingest_counts_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "frontend_errors_tenant_received_idx" ON "frontend_errors" USING btree ("tenant_id","received_at");--> statement-breakpoint
CREATE INDEX "frontend_errors_tenant_fingerprint_idx" ON "frontend_errors" USING btree ("tenant_id","fingerprint","occurred_at");--> statement-breakpoint
CREATE INDEX "telemetry_events_tenant_received_idx" ON "telemetry_events" USING btree ("tenant_id","received_at");--> statement-breakpoint
CREATE INDEX "telemetry_events_tenant_name_idx" ON "telemetry_events" USING btree ("tenant_id","name","occurred_at");--> statement-breakpoint
CREATE POLICY "frontend_errors_tenant_isolation" ON "frontend_errors" AS PERMISSIVE FOR ALL TO "app_user" USING (tenant_id = nullif(current_setting('app.tenant_id', true), '')::uuid) WITH CHECK (tenant_id = nullif(current_setting('app.tenant_id', true), '')::uuid);--> statement-breakpoint
CREATE POLICY "frontend_errors_untenanted" ON "frontend_errors" AS PERMISSIVE FOR ALL TO "app_user" USING (tenant_id is null and nullif(current_setting('app.tenant_id', true), '')::uuid is null) WITH CHECK (tenant_id is null and nullif(current_setting('app.tenant_id', true), '')::uuid is null);--> statement-breakpoint
CREATE POLICY "telemetry_events_tenant_isolation" ON "telemetry_events" AS PERMISSIVE FOR ALL TO "app_user" USING (tenant_id = nullif(current_setting('app.tenant_id', true), '')::uuid) WITH CHECK (tenant_id = nullif(current_setting('app.tenant_id', true), '')::uuid);--> statement-breakpoint
CREATE POLICY "telemetry_events_untenanted" ON "telemetry_events" AS PERMISSIVE FOR ALL TO "app_user" USING (tenant_id is null and nullif(current_setting('app.tenant_id', true), '')::uuid is null) WITH CHECK (tenant_id is null and nullif(current_setting('app.tenant_id', true), '')::uuid is null);--> statement-breakpoint
CREATE POLICY "telemetry_ingest_counts_tenant_isolation" ON "telemetry_ingest_counts" AS PERMISSIVE FOR ALL TO "app_user" USING (tenant_id = nullif(current_setting('app.tenant_id', true), '')::uuid) WITH CHECK (tenant_id = nullif(current_setting('app.tenant_id', true), '')::uuid);--> statement-breakpoint
CREATE POLICY "telemetry_ingest_counts_untenanted" ON "telemetry_ingest_counts" AS PERMISSIVE FOR ALL TO "app_user" USING (tenant_id is null and nullif(current_setting('app.tenant_id', true), '')::uuid is null) WITH CHECK (tenant_id is null and nullif(current_setting('app.tenant_id', true), '')::uuid is null);