#include "rendering/links.hh"

namespace diag {

namespace {

json_t *str_or_null(const std::string &s) { return s.empty() ? json_null() : json_stringn(s.data(), s.size()); }

} // namespace

json_t *links_to_json(const wandb_link &w, const ray_link &r)
{
	if (!w.present() && !r.present())
		return nullptr;
	json_t *links = json_object();
	if (w.present()) {
		json_t *o = json_object();
		json_object_set_new(o, "entity", str_or_null(w.entity));
		json_object_set_new(o, "project", str_or_null(w.project));
		json_object_set_new(o, "run_id", str_or_null(w.run_id));
		json_object_set_new(o, "url", str_or_null(w.url));
		if (w.offline)
			json_object_set_new(o, "offline", json_true());
		json_object_set_new(links, "wandb", o);
	}
	if (r.present()) {
		json_t *o = json_object();
		json_object_set_new(o, "job_id", str_or_null(r.job_id));
		json_object_set_new(o, "actor_id", str_or_null(r.actor_id));
		json_object_set_new(o, "retries", r.retries >= 0 ? json_integer(r.retries) : json_null());
		if (r.same_failure >= 0)
			json_object_set_new(o, "same_failure", json_boolean(r.same_failure == 1));
		json_object_set_new(links, "ray", o);
	}
	return links;
}

std::string links_to_text(const wandb_link &w, const ray_link &r)
{
	std::string t;
	if (w.present()) {
		t += "W&B run: ";
		if (!w.entity.empty() || !w.project.empty())
			t += (w.entity.empty() ? "?" : w.entity) + "/" + (w.project.empty() ? "?" : w.project) + "/";
		t += w.run_id;
		if (w.offline)
			t += " (offline, not synced)";
		if (!w.url.empty())
			t += "  " + w.url;
		t += "\n";
	}
	if (r.present()) {
		t += "Ray:     ";
		std::string sep;
		if (!r.job_id.empty()) {
			t += "job " + r.job_id;
			sep = ", ";
		}
		if (!r.actor_id.empty()) {
			t += sep + "actor " + r.actor_id;
			sep = ", ";
		}
		if (r.retries >= 0) {
			t += sep + std::to_string(r.retries) + (r.retries == 1 ? " retry" : " retries");
			if (r.retries > 0 && r.same_failure == 1)
				t += " (the later attempts failed the same way)";
			else if (r.retries > 0 && r.same_failure == 0)
				t += " (the later attempts failed differently; the first failure is the one above)";
		}
		t += "\n";
	}
	return t;
}

} // namespace diag
