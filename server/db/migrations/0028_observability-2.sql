CREATE TABLE "csp_reports" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid,
	"directive" text NOT NULL,
	"blocked_url" text NOT NULL,
	"document_url" text,
	"source_file" text,
	"line_number" integer,
	"column_number" integer,
	"disposition" text NOT NULL,
	"sample" text,
	"user_agent" text,
	"received_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "csp_reports" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "diagnostic_attempts" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid,
	"run_id" uuid NOT NULL,
	"check" text NOT NULL,
	"attempt" integer NOT NULL,
	"started_at" timestamp with time zone NOT NULL,
	"duration_ms" integer NOT NULL,
	"outcome" text NOT NULL,
	"message" text NOT NULL,
	"detail" jsonb DEFAULT '{}'::jsonb NOT NULL
);
--> statement-breakpoint
ALTER TABLE "diagnostic_attempts" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "diagnostic_checks" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid,
	"check" text NOT NULL,
	"failure_count" integer DEFAULT 0 NOT NULL,
	"consecutive_failures" integer DEFAULT 0 NOT NULL,
	"last_failure_utc" timestamp with time zone,
	"last_success_utc" timestamp with time zone,
	"last_error" text,
	CONSTRAINT "diagnostic_checks_key" UNIQUE NULLS NOT DISTINCT("tenant_id","check")
);
--> statement-breakpoint
ALTER TABLE "diagnostic_checks" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "diagnostic_runs" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid,
	"trigger" text NOT NULL,
	"requested_by" uuid,
	"outcome" text DEFAULT 'running' NOT NULL,
	"started_at" timestamp with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp with time zone,
	"correlation_id" text,
	"instance_id" text
);
--> statement-breakpoint
ALTER TABLE "diagnostic_runs" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "schema_incidents" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid,
	"source" text NOT NULL,
	"method" text NOT NULL,
	"path" text NOT NULL,
	"status" integer NOT NULL,
	"field" text NOT NULL,
	"expected" text NOT NULL,
	"got" text NOT NULL,
	"correlation_id" text,
	"release" text,
	"occurred_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "schema_incidents" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "csp_reports" ADD CONSTRAINT "csp_reports_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "diagnostic_attempts" ADD CONSTRAINT "diagnostic_attempts_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "diagnostic_attempts" ADD CONSTRAINT "diagnostic_attempts_run_id_diagnostic_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."diagnostic_runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "diagnostic_checks" ADD CONSTRAINT "diagnostic_checks_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "diagnostic_runs" ADD CONSTRAINT "diagnostic_runs_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "schema_incidents" ADD CONSTRAINT "schema_incidents_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "csp_reports_tenant_received_idx" ON "csp_reports" USING btree ("tenant_id","received_at");--> statement-breakpoint
CREATE INDEX "csp_reports_tenant_group_idx" ON "csp_reports" USING btree ("tenant_id","directive","blocked_url");--> statement-breakpoint
CREATE INDEX "diagnostic_attempts_tenant_check_idx" ON "diagnostic_attempts" USING btree ("tenant_id","check","started_at");--> statement-breakpoint
CREATE INDEX "diagnostic_attempts_run_idx" ON "diagnostic_attempts" USING btree ("run_id");--> statement-breakpoint
CREATE INDEX "diagnostic_runs_tenant_started_idx" ON "diagnostic_runs" USING btree ("tenant_id","started_at");--> statement-breakpoint
CREATE INDEX "schema_incidents_tenant_occurred_idx" ON "schema_incidents" USING btree ("tenant_id","occurred_at");--> statement-breakpoint
CREATE INDEX "schema_incidents_tenant_call_idx" ON "schema_incidents" USING btree ("tenant_id","method","path","field");--> statement-breakpoint
CREATE POLICY "csp_reports_tenant_isolation" ON "csp_reports" AS PERMISSIVE FOR ALL TO "app_user" USING (tenant_id = nullif(current_setting('app.tenant_id', true), '')::uuid) WITH CHECK (tenant_id = nullif(current_setting('app.tenant_id', true), '')::uuid);--> statement-breakpoint
CREATE POLICY "csp_reports_untenanted" ON "csp_reports" AS PERMISSIVE FOR ALL TO "app_user" USING (tenant_id is null and nullif(current_setting('app.tenant_id', true), '')::uuid is null) WITH CHECK (tenant_id is null and nullif(current_setting('app.tenant_id', true), '')::uuid is null);--> statement-breakpoint
CREATE POLICY "diagnostic_attempts_tenant_isolation" ON "diagnostic_attempts" AS PERMISSIVE FOR ALL TO "app_user" USING (tenant_id = nullif(current_setting('app.tenant_id', true), '')::uuid) WITH CHECK (tenant_id = nullif(current_setting('app.tenant_id', true), '')::uuid);--> statement-breakpoint
CREATE POLICY "diagnostic_attempts_untenanted" ON "diagnostic_attempts" AS PERMISSIVE FOR ALL TO "app_user" USING (tenant_id is null and nullif(current_setting('app.tenant_id', true), '')::uuid is null) WITH CHECK (tenant_id is null and nullif(current_setting('app.tenant_id', true), '')::uuid is null);--> statement-breakpoint
CREATE POLICY "diagnostic_checks_tenant_isolation" ON "diagnostic_checks" AS PERMISSIVE FOR ALL TO "app_user" USING (tenant_id = nullif(current_setting('app.tenant_id', true), '')::uuid) WITH CHECK (tenant_id = nullif(current_setting('app.tenant_id', true), '')::uuid);--> statement-breakpoint
CREATE POLICY "diagnostic_checks_untenanted" ON "diagnostic_checks" AS PERMISSIVE FOR ALL TO "app_user" USING (tenant_id is null and nullif(current_setting('app.tenant_id', true), '')::uuid is null) WITH CHECK (tenant_id is null and nullif(current_setting('app.tenant_id', true), '')::uuid is null);--> statement-breakpoint
CREATE POLICY "diagnostic_runs_tenant_isolation" ON "diagnostic_runs" AS PERMISSIVE FOR ALL TO "app_user" USING (tenant_id = nullif(current_setting('app.tenant_id', true), '')::uuid) WITH CHECK (tenant_id = nullif(current_setting('app.tenant_id', true), '')::uuid);--> statement-breakpoint
CREATE POLICY "diagnostic_runs_untenanted" ON "diagnostic_runs" AS PERMISSIVE FOR ALL TO "app_user" USING (tenant_id is null and nullif(current_setting('app.tenant_id', true), '')::uuid is null) WITH CHECK (tenant_id is null and nullif(current_setting('app.tenant_id', true), '')::uuid is null);--> statement-breakpoint
CREATE POLICY "schema_incidents_tenant_isolation" ON "schema_incidents" AS PERMISSIVE FOR ALL TO "app_user" USING (tenant_id = nullif(current_setting('app.tenant_id', true), '')::uuid) WITH CHECK (tenant_id = nullif(current_setting('app.tenant_id', true), '')::uuid);--> statement-breakpoint
CREATE POLICY "schema_incidents_untenanted" ON "schema_incidents" AS PERMISSIVE FOR ALL TO "app_user" USING (tenant_id is null and nullif(current_setting('app.tenant_id', true), '')::uuid is null) WITH CHECK (tenant_id is null and nullif(current_setting('app.tenant_id', true), '')::uuid is null);