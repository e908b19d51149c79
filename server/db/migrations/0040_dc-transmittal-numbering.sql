-- Issue 31: how each project numbers its transmittals ({project}-TRN-{seq:4} when it has no row); forced row-level security like every tenant table.
CREATE TABLE "transmittal_numbering" (
	"tenant_id" uuid NOT NULL,
	"project_id" uuid NOT NULL,
	"format" text NOT NULL,
	"updated_by" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "transmittal_numbering_tenant_id_project_id_pk" PRIMARY KEY("tenant_id","project_id")
);
--> statement-breakpoint
ALTER TABLE "transmittal_numbering" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "transmittal_numbering" ADD CONSTRAINT "transmittal_numbering_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "transmittal_numbering" ADD CONSTRAINT "transmittal_numbering_updated_by_users_id_fk" FOREIGN KEY ("updated_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "transmittal_numbering" ADD CONSTRAINT "transmittal_numbering_tenant_id_project_id_projects_tenant_id_id_fk" FOREIGN KEY ("tenant_id","project_id") REFERENCES "public"."projects"("tenant_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE POLICY "transmittal_numbering_tenant_isolation" ON "transmittal_numbering" AS PERMISSIVE FOR ALL TO "app_user" USING (tenant_id = nullif(current_setting('app.tenant_id', true), '')::uuid) WITH CHECK (tenant_id = nullif(current_setting('app.tenant_id', true), '')::uuid);--> statement-breakpoint
ALTER TABLE "transmittal_numbering" FORCE ROW LEVEL SECURITY;
