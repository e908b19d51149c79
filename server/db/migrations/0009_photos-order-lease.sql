ALTER TABLE "photos" ADD COLUMN "display_name" text;--> statement-breakpoint
-- Hand-written: existing photos get the cleaned name the code now stores (server/domain/photos/file-name.ts):
-- the part after the last / or \, without control, bidi-override or separator characters, trimmed, at most 120 characters, never empty.
UPDATE "photos" SET "display_name" = CASE WHEN n.name IN ('', '.', '..') THEN 'photo' ELSE n.name END FROM (SELECT "tenant_id", "id", btrim(left(btrim(regexp_replace(regexp_replace("file_name", '^.*[/\\]', ''), '[[:cntrl:]\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff]', '', 'g')), 120)) AS name FROM "photos") AS n WHERE n."tenant_id" = "photos"."tenant_id" AND n."id" = "photos"."id";--> statement-breakpoint
ALTER TABLE "photos" ALTER COLUMN "display_name" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "upload_sessions" ADD COLUMN "lease_token" uuid;--> statement-breakpoint
ALTER TABLE "upload_sessions" ADD COLUMN "lease_expires_at" timestamp with time zone;
