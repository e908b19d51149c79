CREATE TABLE "room_messages" (
	"tenant_id" uuid NOT NULL,
	"id" uuid DEFAULT gen_random_uuid() NOT NULL,
	"room" text NOT NULL,
	"sender_user_id" uuid,
	"text" text NOT NULL,
	"sent_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "room_messages_tenant_id_id_pk" PRIMARY KEY("tenant_id","id")
);
--> statement-breakpoint
ALTER TABLE "room_messages" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "room_messages" ADD CONSTRAINT "room_messages_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "room_messages" ADD CONSTRAINT "room_messages_sender_user_id_users_id_fk" FOREIGN KEY ("sender_user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "room_messages_room_idx" ON "room_messages" USING btree ("tenant_id","room","sent_at");--> statement-breakpoint
CREATE POLICY "room_messages_read" ON "room_messages" AS PERMISSIVE FOR SELECT TO "app_user" USING (tenant_id = nullif(current_setting('app.tenant_id', true), '')::uuid);--> statement-breakpoint
CREATE POLICY "room_messages_append" ON "room_messages" AS PERMISSIVE FOR INSERT TO "app_user" WITH CHECK (tenant_id = nullif(current_setting('app.tenant_id', true), '')::uuid);--> statement-breakpoint
-- Table owners bypass row-level security unless it is forced. Every tenant-owned table forces it.
ALTER TABLE "room_messages" FORCE ROW LEVEL SECURITY;
