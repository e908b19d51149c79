ALTER TABLE "documents" ADD COLUMN "renumbers" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "transmittals" ADD COLUMN "purpose_warnings" jsonb;--> statement-breakpoint
ALTER TABLE "transmittals" ADD COLUMN "purpose_confirmed_by" uuid;--> statement-breakpoint
ALTER TABLE "transmittals" ADD COLUMN "purpose_confirmed_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "transmittals" ADD CONSTRAINT "transmittals_purpose_confirmed_by_users_id_fk" FOREIGN KEY ("purpose_confirmed_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;