dist_man_MANS += %reldir%/denpex.1
